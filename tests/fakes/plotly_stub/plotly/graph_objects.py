"""Recording fakes of plotly.graph_objects.Figure / Scatter / Heatmap / Bar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class _Trace(dict):  # type: ignore[type-arg]
    kind = "trace"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(type=self.kind, **kwargs)


class Scatter(_Trace):
    kind = "scatter"


class Heatmap(_Trace):
    kind = "heatmap"


class Bar(_Trace):
    kind = "bar"


class Figure:
    def __init__(self, data: list[_Trace] | None = None, layout: dict[str, Any] | None = None):
        self.data = tuple(data or [])
        self.layout = dict(layout or {})

    def to_html(self, *, full_html: bool = True, include_plotlyjs: Any = True) -> str:
        body = json.dumps({"data": self.data, "layout": self.layout}, default=str)
        js = "<script>/* plotly.js */</script>" if include_plotlyjs is True else ""
        return f"<!doctype html><html><head>{js}</head><body>{body}</body></html>"

    def write_html(self, file: str, *, include_plotlyjs: Any = True) -> None:
        Path(file).write_text(self.to_html(include_plotlyjs=include_plotlyjs), encoding="utf-8")
