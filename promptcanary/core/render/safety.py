"""Make untrusted text (model output, provider errors, prompt text) safe to show.

Model output is attacker-controlled as far as a report is concerned: a response can hold
``<script>``, Markdown fences, ``@team``, ``#123``, ``::set-output`` lines, NUL bytes, terminal
escape sequences or right-to-left overrides. Every renderer runs text through two stages:

1. :func:`clean_text` (format-agnostic): control characters, bidi overrides, lone surrogates and
   invisible tag characters become visible placeholders; line endings become ``\\n``.
2. A format-specific step: :func:`md_fence` / :func:`md_code` for Markdown, jinja2 autoescaping for
   HTML, :func:`neutralise_terminal` for the terminal, :func:`json_safe` for JSON.

Workflow commands: the GitHub runner treats a printed line whose first non-blank characters are
``::`` as a command (and ``##[`` anywhere in a line as a legacy one). A zero-width space (not
whitespace to the runner, invisible to readers) is inserted so no such line survives.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from promptcanary.core.text import ELLIPSIS, clip

#: Inserted to break workflow commands, mentions and references without changing what is read.
ZWSP = "\u200b"

#: Longest line kept in an excerpt; longer lines are hard-wrapped at this width.
MAX_LINE = 160

# C0 controls except tab/newline, DEL, C1 controls; bidi embeddings/overrides/isolates and marks;
# lone surrogates (cannot be encoded); interlinear annotation; Unicode "tag" characters (used to
# smuggle invisible instructions); BOM.
_UNSAFE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)
_NEWLINES_RE = re.compile("\r\n|[\r\u2028\u2029]")
_COMMAND_LINE_RE = re.compile(r"^(\s*)(?=::)", re.MULTILINE)
_LEGACY_COMMAND = "##["
_BACKTICKS_RE = re.compile(r"`+")


def _placeholder(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if code < 0x20:
        # Unicode "control pictures" (␀ ␛ ...) keep the character visible and inert.
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"⟨U+{code:04X}⟩"


def clean_text(text: str | None) -> str:
    """Return ``text`` with every dangerous or invisible control character made visible.

    Newlines are normalised to ``\\n``; tabs are kept. Printable text is unchanged.
    """
    if not text:
        return ""
    text = _NEWLINES_RE.sub("\n", text)
    return _UNSAFE_RE.sub(_placeholder, text)


def neutralise_commands(text: str) -> str:
    """Break every line that the GitHub runner would read as a workflow command."""
    if "::" in text:
        text = _COMMAND_LINE_RE.sub(lambda m: m.group(1) + ZWSP, text)
    if _LEGACY_COMMAND in text:
        text = text.replace(_LEGACY_COMMAND, "#" + ZWSP + "#[")
    return text


def neutralise_terminal(text: str) -> str:
    """Clean ``text`` for the terminal: no control sequences, no workflow commands anywhere.

    Terminals wrap long lines at arbitrary points, so every ``::`` is broken, not only those at
    the start of a line.
    """
    text = clean_text(text)
    if "::" in text:
        text = text.replace("::", ":" + ZWSP + ":")
    if _LEGACY_COMMAND in text:
        text = text.replace(_LEGACY_COMMAND, "#" + ZWSP + "#[")
    return text


def wrap_long_lines(text: str, width: int = MAX_LINE) -> str:
    """Hard-wrap lines longer than ``width`` so a 100 kB single line cannot wreck a layout."""
    if len(text) <= width:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(line[i : i + width] for i in range(0, len(line), width))
    return "\n".join(out)


def excerpt(text: str | None, *, max_chars: int, max_lines: int = 40) -> str:
    """A cleaned, wrapped excerpt of at most ``max_chars`` characters and ``max_lines`` lines.

    When text is cut, a last line says how much was left out.
    """
    if not text:
        return ""
    total = len(text)
    # Only a bounded prefix is ever looked at, so huge responses cost nothing extra.
    head = wrap_long_lines(clean_text(text[: max_chars * 2 + 1]))
    lines = head.split("\n")
    kept: list[str] = []
    used = 0
    for line in lines[:max_lines]:
        if used + len(line) + 1 > max_chars:
            room = max_chars - used
            if room > 20:
                kept.append(line[:room])
                used += room
            break
        kept.append(line)
        used += len(line) + 1
    shown = "\n".join(kept)
    unread = max(total - (max_chars * 2 + 1), 0)
    if len(shown) < len(head) or unread:
        # Counted on the cleaned text (placeholders included) plus whatever was never read.
        hidden = len(head) - len(shown) + unread
        shown = shown.rstrip("\n") + f"\n… ({hidden:,} more characters not shown)"
    return shown


def one_line(text: str | None, max_chars: int) -> str:
    """A cleaned single-line excerpt (newlines shown as ⏎), cut to ``max_chars`` with an ellipsis."""
    if not text:
        return ""
    head = clean_text(text[: max_chars * 2 + 1])
    flat = " ".join(part.strip() for part in head.split("\n")).replace("\t", " ")
    flat = re.sub(r" {2,}", " ", flat).strip()
    if len(text) > max_chars * 2 + 1:  # cut while reading: say so even if the rest fits
        flat = flat[: max_chars - 1].rstrip() + ELLIPSIS
    return clip(flat, max_chars)


# ── Markdown ────────────────────────────────────────────────────────────────────────────────


def md_fence(text: str, info: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run in ``text``.

    ``text`` must already be cleaned. Nothing inside a fence is Markdown, HTML, a mention or a
    reference; workflow-command lines are still broken because the raw Markdown may be printed.
    """
    longest = max((len(m) for m in _BACKTICKS_RE.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = neutralise_commands(text.rstrip("\n"))
    return f"{fence}{info}\n{body}\n{fence}"


def md_code(text: str, max_chars: int = 80) -> str:
    """An inline code span for untrusted text inside Markdown (tables, lists, headings).

    Code spans render no HTML, emphasis, links, mentions or references. Pipes become ``¦`` because
    GitHub splits table cells on ``|`` even inside code spans; newlines become spaces.
    """
    flat = one_line(text, max_chars).replace("|", "¦")
    if not flat:
        return ""
    longest = max((len(m) for m in _BACKTICKS_RE.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


_MENTION_RE = re.compile(r"([@#])(?=[\w-])")
_GH_REF_RE = re.compile(r"(?i)\b(gh)(?=-\d)")
_AUTOLINK_RE = re.compile(r"(?i)(://|www\.)")
_HTML_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_MD_SPECIALS = re.compile(r"([\\`*_\[\]<>|~$!])")


def md_text(text: str | None, max_chars: int = 200, *, links: bool = False) -> str:
    """Untrusted text as plain Markdown prose (one line): escaped, no mention or reference.

    Bare URLs are defused too unless ``links`` (for caller-supplied text such as a report
    location). Used where a code span would look wrong (``<summary>`` lines are HTML: see
    :func:`html_text`).
    """
    flat = one_line(text, max_chars)
    flat = _MD_SPECIALS.sub(r"\\\1", flat)
    return _defuse(flat.replace("&", "&amp;"), links=links)


def html_text(text: str | None, max_chars: int = 200) -> str:
    """Untrusted text for a raw-HTML line of Markdown (``<summary>``): escaped and inert."""
    return _defuse(one_line(text, max_chars).translate(_HTML_ESCAPES))


def _defuse(text: str, *, links: bool = False) -> str:
    """Break @mentions, #123 / GH-123 references and bare-URL autolinks with a zero-width space."""
    if links:
        # Keep URLs whole: only the text between them is defused.
        parts = _URL_SPLIT_RE.split(text)
        return "".join(p if i % 2 else _defuse(p) for i, p in enumerate(parts))
    text = _MENTION_RE.sub(lambda m: m.group(1) + ZWSP, text)
    text = _GH_REF_RE.sub(lambda m: m.group(1) + ZWSP, text)
    return _AUTOLINK_RE.sub(lambda m: m.group(1)[0] + ZWSP + m.group(1)[1:], text)


_URL_SPLIT_RE = re.compile(r"(https?://[^\s<>]+)")


def safe_url(url: str | None, max_chars: int = 500) -> str | None:
    """An http(s) URL fit for a Markdown link or an ``href``; None for anything else."""
    if not url:
        return None
    url = url.strip()
    if not re.match(r"(?i)^https?://", url) or len(url) > max_chars:
        return None
    return quote(clean_text(url), safe=":/?#[]@!$&'*+,;=%~")


def marker_value(value: str) -> str:
    """A value that can sit inside an HTML comment marker: no ``-->``, spaces or newlines."""
    return quote(value, safe="/:+")


# ── JSON ────────────────────────────────────────────────────────────────────────────────────

# Characters valid in JSON strings that can still mislead a human reading the file in a terminal
# or break JavaScript: written as \\u escapes (the JSON value is unchanged). Inclusive ranges.
_JSON_ESCAPED_RANGES = (
    (0x7F, 0x9F),  # DEL and the C1 controls
    (0x061C, 0x061C),
    (0x200E, 0x200F),
    (0x2028, 0x2029),
    (0x202A, 0x202E),
    (0x2066, 0x2069),
    (0xD800, 0xDFFF),  # lone surrogates
    (0xFEFF, 0xFEFF),
)
_JSON_ESCAPES = {
    code: f"\\u{code:04x}"
    for first, last in _JSON_ESCAPED_RANGES
    for code in range(first, last + 1)
}
# Tag characters lie outside the BMP: JSON spells them as a surrogate pair.
_JSON_ESCAPES.update(
    {
        code: f"\\u{0xD800 + ((code - 0x10000) >> 10):04x}\\u{0xDC00 + ((code - 0x10000) & 0x3FF):04x}"
        for code in range(0xE0000, 0xE0080)
    }
)

# The class spelt as ranges: as 2,100 single characters it cost ~3 ms to build at every start.
_JSON_UNSAFE_RE = re.compile(
    "["
    + "".join(
        f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in _JSON_ESCAPED_RANGES
    )
    + "]|[\U000e0000-\U000e007f]"
)


def json_safe(text: str) -> str:
    """Escape bidi controls, line separators, C1 controls and lone surrogates in JSON text.

    Only valid inside JSON strings' escapes: the decoded value is unchanged.
    """
    return _JSON_UNSAFE_RE.sub(lambda m: _JSON_ESCAPES[ord(m.group(0))], text)


def plain_hint(markdown: str) -> str:
    """A trusted one-line Markdown hint as plain text for a terminal (code spans unmarked)."""
    return markdown.replace("`", "")
