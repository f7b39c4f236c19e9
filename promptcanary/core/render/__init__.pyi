# The renderers the report formats use (core/reporter.py: FORMATS), loaded on first use: read by
# lazy_loader (__init__.py) and by type checkers, as in promptcanary/__init__.pyi.
from .html import render_html as render_html, render_run_html as render_run_html
from .junit import drift_to_junit as drift_to_junit, run_to_junit as run_to_junit
from .markdown import render_markdown as render_markdown
from .run_output import (
    render_run_markdown as render_run_markdown,
    render_run_terminal as render_run_terminal,
)
from .terminal import render_terminal as render_terminal
