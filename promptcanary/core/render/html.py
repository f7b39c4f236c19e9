"""Self-contained HTML reports (jinja2, autoescaping on for every template).

The page carries its own CSS and one small script (table sorting and filtering). A
Content-Security-Policy allows exactly that script by its hash: even if markup ever slipped
through escaping, no other script could run. The script reads text and ``data-*`` attributes
only; it never writes HTML.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import resources
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from promptcanary.core.models.drift import GLYPH_DRIFT, GLYPH_INCONCLUSIVE, GLYPH_OK
from promptcanary.core.render import fmt
from promptcanary.core.render.context import PairView, ReportView
from promptcanary.core.render.run import RunView
from promptcanary.core.render.safety import safe_url
from promptcanary.core.render.svg import heat_strip, trend_chart

#: Regressions shown with full details in HTML (the table lists up to MAX_TABLE_ROWS).
MAX_DETAILS = 300
MAX_TABLE_ROWS = 5_000
MAX_IMPROVEMENTS = 1_000


def _templates_dir() -> str:
    return str(resources.files("promptcanary.core") / "templates")


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The jinja2 environment for report templates (autoescape everywhere)."""
    env = Environment(
        loader=FileSystemLoader(_templates_dir()),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["fmt"] = fmt
    env.filters["code_spans"] = code_spans
    env.filters["glyphs"] = glyphs
    return env


#: The glyphs a summary starts with (``DriftReport.summary``), as symbols in text fonts with a
#: word for screen readers: ✅ and ❔ are emoji only, so a machine without an emoji font (a
#: CI runner's browser, many Linux desktops) drew an empty box.
_GLYPHS = {
    GLYPH_DRIFT: ("⚠\ufe0e", "drift"),
    GLYPH_OK: ("✔\ufe0e", "no drift"),
    GLYPH_INCONCLUSIVE: ("?", "inconclusive"),
}


def glyphs(text: str) -> Markup:
    """``text`` escaped, each summary glyph drawn as a text symbol labelled in words."""
    html = str(escape(text))
    for emoji, (symbol, label) in _GLYPHS.items():
        html = html.replace(
            emoji,
            f'<span class="glyph" role="img" aria-label="{label}" title="{label}">{symbol}</span>',
        )
    return Markup(html)


def code_spans(hint: str) -> Markup:
    """A trusted one-line Markdown hint as HTML: escaped, with `code` spans as <code>."""
    parts = str(escape(hint)).split("`")
    html = "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))
    return Markup(html)


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str, str]:
    """(css, script, CSP script hash) read once from the templates folder."""
    base = resources.files("promptcanary.core") / "templates"
    css = (base / "report.css").read_text(encoding="utf-8")
    script = (base / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    return css, script, f"'sha256-{digest}'"


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """(css class, text) per line of a unified diff."""
    out = []
    for line in diff.split("\n"):
        cls = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")
        out.append((cls, line))
    return out


def page_context(**extra: Any) -> dict[str, Any]:
    """Assets and helpers shared by every HTML page."""
    css, script, script_hash = _assets()
    # Our own static assets: marked safe so the CSP source keeps its literal quotes.
    return {
        "css": Markup(css),
        "script": Markup(script),
        "script_hash": Markup(script_hash),
        **extra,
    }


def render_html(view: ReportView) -> str:
    """The drift report as one HTML document."""
    regs: list[PairView] = view.regressions
    return (
        environment()
        .get_template("report.html.j2")
        .render(
            **page_context(
                view=view,
                rows=regs[:MAX_TABLE_ROWS],
                rows_hidden=max(len(regs) - MAX_TABLE_ROWS, 0),
                details=regs[:MAX_DETAILS],
                details_hidden=max(len(regs) - MAX_DETAILS, 0),
                improvements=view.improvements[:MAX_IMPROVEMENTS],
                improvements_hidden=max(len(view.improvements) - MAX_IMPROVEMENTS, 0),
                categories=sorted({pv.category for pv in regs[:MAX_TABLE_ROWS]}),
                trend_svg=trend_chart(view.trend),
                heat_svg=heat_strip(view.trend, view.probe_names),
                usage_cards=fmt.usage_card_rows(
                    view.report.baseline_usage, view.report.current_usage
                ),
                run_url=safe_url(view.run_url),
                diff_lines=diff_lines,
            )
        )
    )


def render_run_html(view: RunView) -> str:
    """A run (no baseline) as one HTML document."""
    return (
        environment()
        .get_template("run.html.j2")
        .render(
            **page_context(
                view=view,
                rows=view.failing[:MAX_TABLE_ROWS],
                rows_hidden=max(len(view.failing) - MAX_TABLE_ROWS, 0),
                details=view.failing[:MAX_DETAILS],
                run_url=safe_url(view.run_url),
            )
        )
    )
