"""Charts drawn with the app's own plotly.js build: a fresh tab opens a chart page without Streamlit's
4.7 MB plotly chunk.

``st.plotly_chart`` makes the browser fetch and evaluate Streamlit's ``PlotlyChart`` chunk (all of
plotly.js, 4.7 MB): ~0.9 s of a fresh tab's main thread, as long as a whole one-title page takes to
open. The lesson's player already draws with ``dashboard/static/plotly-nbem.min.js.gz`` (scatter, bar
and heatmap only, evaluated in ~0.14 s; docs/performance.md, "Our plotly.js build"). :func:`draw` puts
a chart of :func:`dashboard.pagekit.figures.show_chart` in a small components-v2 element
(``lean_chart.js``) that draws it with that build, when

* a browser runs the page (not streamlit.testing's AppTest: tests read ``st.plotly_chart``'s spec),
* every trace is of a type the build has (:data:`TRACES`; anything else goes to ``st.plotly_chart``),
* only ``config``, ``width`` and ``height`` are asked for (no selection events), and
* the build can be served (``server.enableStaticServing``); if the browser cannot load it, the
  component falls back to the same chunk st.plotly_chart loads.

The chart looks as st.plotly_chart draws it: the figure's template gets Streamlit's light theme and the
app's readable text colours merged in (:func:`streamlit_template`, as ``chart_template`` does for the
player), cached once per process per template.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import plotly.io as pio
from streamlit import config as st_config
from streamlit.components import v2

from dashboard.charts import theme
from dashboard.charts.player_template import PLAYER_DIR, _merge
from dashboard.serve import modules, plotly_build
from nblab.bundle import module_text

HERE = Path(__file__).resolve().parent
#: trace types dashboard/static/plotly-nbem.min.js.gz has (scripts/build_plotly_bundle.sh)
TRACES = frozenset({"scatter", "bar", "heatmap"})
#: st.plotly_chart arguments the lean chart honours
KWARGS = frozenset({"config", "width", "height"})


def _register():
    try:  # the module once per browser when the app serves it; lean_chart.js imports the plotly.js loader
        return v2.component("nbem_chart", js=modules.component_js("lean_chart",
                                                                  module_text("dashboard/pagekit/lean_chart.js", HERE.parents[1])),
                            isolate_styles=False)
    except Exception:  # components v2 missing or refused: st.plotly_chart draws every chart
        return None


_COMPONENT = _register()


@lru_cache(maxsize=1)
def _sources() -> dict | None:
    src = plotly_build.plotly_sources()
    return src if src and src.get("bundle") else None


@lru_cache(maxsize=1)
def _streamlit_layout() -> tuple[dict, dict]:
    return (json.loads((PLAYER_DIR / "streamlit_theme.json").read_text(encoding="utf-8")), theme.TEXT_LAYOUT)


@lru_cache(maxsize=8)
def _template_json(text: str) -> dict:
    tpl = json.loads(text)
    st_layout, text_layout = _streamlit_layout()
    tpl["layout"] = _merge(_merge(tpl.get("layout") or {}, st_layout), text_layout)
    return tpl


def streamlit_template(template) -> dict:
    """``template`` (a plotly template dict, a name, or None) with Streamlit's light theme and the app's text
    colours merged into its layout: what st.plotly_chart's frontend draws with. Cached per template (at
    most 8: the app uses two); the result is shared, never mutate it."""
    if template is None:
        template = pio.templates[pio.templates.default]
    if isinstance(template, str):
        template = pio.templates[template]
    if not isinstance(template, dict):
        template = template.to_plotly_json()
    return _template_json(json.dumps(template, sort_keys=True, default=str))


def _browser() -> bool:
    try:  # streamlit.config: st.get_option hides "global.*" options
        return not st_config.get_option("global.appTest")
    except Exception:  # pragma: no cover - an option renamed in a future Streamlit
        return True


def usable(spec: dict, kwargs: dict) -> bool:
    """Whether :func:`draw` can draw this chart (see the module's docstring)."""
    if _COMPONENT is None or not set(kwargs) <= KWARGS or _sources() is None or not _browser():
        return False
    return all((tr.get("type") or "scatter") in TRACES for tr in spec.get("data") or [])


def payload(spec: dict, config: dict | None = None, height: int | None = None) -> str:
    """The JSON text lean_chart.js reads: the figure with its template themed, plotly's config, the height
    in px (the layout's, else plotly's default 450) and where plotly.js comes from."""
    layout = dict(spec.get("layout") or {})
    layout["template"] = streamlit_template(layout.get("template"))
    h = height if isinstance(height, int) else layout.get("height")
    return json.dumps({"spec": {"data": spec.get("data") or [], "layout": layout}, "config": config or {},
                       "height": int(h) if isinstance(h, (int, float)) else 450, "plotly": _sources()},
                      default=_plain)


def _plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"not JSON: {type(v).__name__}")


def draw(spec: dict, *, key: str, config: dict | None = None, width="stretch", height=None):
    """Draw ``spec`` (a plain plotly dict) with the app's plotly.js build; returns None (no selection)."""
    w = width if isinstance(width, int) or width == "stretch" else "stretch"
    _COMPONENT(key=key, data=payload(spec, config, height), width=w)
    return None
