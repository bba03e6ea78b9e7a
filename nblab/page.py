"""The lab page: one self-contained HTML document whose EM runs in the browser.

:func:`lab_html` puts together

* the lab's data (:mod:`nblab.data`'s dict) as JSON in a ``<script type="application/json">`` block, with
  ``<``, ``>``, ``&`` and the two JavaScript line separators escaped (a name such as ``</script><img …>``
  stays data), which the page reads with ``JSON.parse`` and puts on screen with ``textContent`` only;
* the page's settings: the lesson's defaults and the controls' choices (:mod:`nblab.defaults`, the app's
  own), the settings the page opens with, and the chart template;
* plotly.js, our build (``dashboard/static/plotly-nbem.min.js.gz``, read by path), gzip + base64, unpacked
  by the browser with ``DecompressionStream``, as the offline lesson does;
* the ES modules of ``nblab/js/`` as one inline script (:mod:`nblab.bundle`) and ``nblab/lab.css``;
* a Content-Security-Policy that lets nothing load from the network (inline code, data: and blob: only).

The settings a link carries (the URL fragment, ``#lam=0.1&hidden=95``) win over those the page was written
with; a value the page cannot use is refused with a notice on the page (``nblab/js/state.js``).

nblab imports nbcore, numpy and the standard library only: the caller passes the plotly template
(``dashboard.charts.player_template.chart_template()``, saved as nblab/template.json, is the app's); without one the page uses nblab/template.json, else :data:`TEMPLATE`,
the same text colours on white.
"""
from __future__ import annotations

import base64
import html
import json
import math
import re
from pathlib import Path
from typing import Any

import nbcore
from nblab import bundle
from nblab import defaults as D

HERE = Path(__file__).resolve().parent
CSS = HERE / "lab.css"
#: the lower panels' styles (nblab/js/panels/)
PANELS_CSS = HERE / "panels.css"
#: the app's chart template as JSON (written by ``python -m dashboard.charts.player_template``), used when the
#: caller passes none
TEMPLATE_JSON = HERE / "template.json"
#: our plotly.js build (scatter, bar and heatmap), gzipped as the app ships it
PLOTLY_GZ = HERE.parent / "dashboard" / "static" / "plotly-nbem.min.js.gz"
PLOTLY_LICENSE = HERE.parent / "dashboard" / "static" / "plotly-LICENSE.txt"
#: the page's style sheets, in order (the one-file page inlines them; nblab.site serves them as one file)
STYLE_SHEETS = (CSS, PANELS_CSS)

#: nothing on this page may load from the network: only inline code, data: and blob: URLs
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' blob:; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; connect-src data: blob:")

#: the chart template when the caller passes none: the app's readable text colours (4.5:1 or more on
#: white: dashboard/charts/theme.TEXT_LAYOUT), a white plot with light grid lines
TEMPLATE = {"layout": {
    "font": {"family": '"Source Sans Pro", "Source Sans", -apple-system, "Segoe UI", Roboto, sans-serif',
             "color": "#555867"},
    "title": {"font": {"color": "#2F2D2B"}, "x": 0.0, "xanchor": "left"},
    "paper_bgcolor": "#FFFFFF", "plot_bgcolor": "#FFFFFF",
    "colorway": ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"],
    "legend": {"font": {"color": "#262730"}},
    "xaxis": {"gridcolor": "#E5E5E5", "linecolor": "#BDBDBD", "zeroline": False, "automargin": True,
              "tickfont": {"color": "#555867"}, "title": {"font": {"color": "#555867"}}},
    "yaxis": {"gridcolor": "#E5E5E5", "linecolor": "#BDBDBD", "zeroline": False, "automargin": True,
              "tickfont": {"color": "#555867"}, "title": {"font": {"color": "#555867"}}},
    "hoverlabel": {"font": {"color": "#262730"}},
}}

#: plotly.js starts unpacking as soon as its bytes are parsed, before the data is: the gzip stream runs off
#: the main thread, and the unpacked code goes in as a blob: script (compiled off the main thread too)
#: while the page reads the data and builds the run. boot.js awaits window.__nblabPlotly (resolved with
#: window.Plotly, or null when this browser cannot unpack it: boot.js then says so).
UNPACK_JS = ("window.__nblabPlotly=(function(){try{if(typeof DecompressionStream==='undefined')return Promise.resolve(null);"
             "var b=atob(document.getElementById('nblab-plotly').textContent.trim()),u=new Uint8Array(b.length);"
             "for(var i=0;i<b.length;i++)u[i]=b.charCodeAt(i);"
             "return new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).text()"
             ".then(function(js){return new Promise(function(ok){"
             "var d=window.define;window.define=undefined;"
             "var url=URL.createObjectURL(new Blob([js],{type:'text/javascript'})),s=document.createElement('script');"
             "s.src=url;s.onload=s.onerror=function(){URL.revokeObjectURL(url);if(d!==undefined)window.define=d;ok(window.Plotly||null);};"
             "document.head.appendChild(s);});});"
             "}catch(e){return Promise.resolve(null);}})();")

#: the settings a page can be written with (the URL fragment's keys)
SETTING_KEYS = ("dataset", "model", "hidden", "lam", "init", "seed", "max_iter", "tol", "t", "speed", "classroom")
SPEEDS = tuple(D.SPEEDS)


# ---- text safe inside the page -------------------------------------------------------------------------

def json_for_script(obj: Any) -> str:
    """JSON safe inside <script type="application/json">: no "</script>", no "<!--", no entities, and the
    two line separators JavaScript once read as line ends escaped."""
    s = json.dumps(_finite(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_default)
    return (s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _default(v):
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - nblab depends on numpy
        np = None
    if np is not None:
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating):
            return float(v) if np.isfinite(v) else None
        if isinstance(v, np.ndarray):
            return _finite(v.tolist())
        if isinstance(v, np.bool_):
            return bool(v)
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    raise TypeError(f"{type(v).__name__} is not JSON")


def _finite(obj):
    """NaN and ±∞ become null (JSON has none)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def script_text(js: str) -> str:
    """JavaScript safe inside an inline <script>: "</script" cannot end it early. "<!--" (which would put
    the HTML parser in its escaped state) is refused: the modules never need it."""
    if "<!--" in js:
        raise ValueError("the lab's script contains '<!--', which an inline script cannot hold safely")
    return re.sub(r"</(script)", r"<\\/\1", js, flags=re.I)


# ---- the page's pieces ---------------------------------------------------------------------------------

def plotly_b64(path: Path | None = None) -> str:
    """Our plotly.js build, gzipped as shipped, in base64 (the page unpacks it with DecompressionStream)."""
    return base64.b64encode(Path(path or PLOTLY_GZ).read_bytes()).decode("ascii")


def _dataset_name(lab_data: dict) -> str:
    for k in ("name", "dataset"):
        if isinstance(lab_data.get(k), str) and lab_data[k]:
            return lab_data[k]
    return "your data"


def _models(lab_data: dict) -> list[str]:
    got = lab_data.get("models") or ([lab_data["model"]] if lab_data.get("model") else None)
    return [str(m) for m in got] if got else ["bernoulli"]


#: the ``tol`` setting for "no tolerance rule" (EM runs to its iteration budget, as nbcore with ``tol=None``);
#: a page written with it offers "none" among its tolerances
NO_TOL = "none"


def check_settings(settings: dict | None, lab_data: dict) -> dict:
    """The settings a page is written with, checked against the controls' choices (ValueError naming the
    key otherwise). A link's fragment still wins over them in the browser."""
    out: dict[str, Any] = {}
    for key, v in (settings or {}).items():
        if key not in SETTING_KEYS:
            raise ValueError(f"{key!r} is not a setting of the lab page ({', '.join(SETTING_KEYS)})")
        if v is None:
            continue
        if key == "dataset":
            if str(v) != _dataset_name(lab_data):
                raise ValueError(f"dataset={v!r}: this page holds the {_dataset_name(lab_data)} data")
            out[key] = str(v)
        elif key == "model":
            if str(v) not in _models(lab_data):
                raise ValueError(f"model={v!r}: the data allows {', '.join(_models(lab_data))}")
            out[key] = str(v)
        elif key in ("hidden", "seed", "max_iter", "t"):
            lo, hi = {"hidden": (0, 100), "seed": (0, D.SEED_MAX), "max_iter": (1, D.MAX_ITER_MAX),
                      "t": (0, D.MAX_ITER_MAX)}[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or not lo <= v <= hi:
                raise ValueError(f"{key}={v!r}: a whole number in {lo}–{hi}")
            out[key] = int(v)
        elif key == "lam":
            if not isinstance(v, (int, float)) or float(v) not in D.LAMBDAS:
                raise ValueError(f"lam={v!r}: one of {', '.join(f'{x:g}' for x in D.LAMBDAS)}")
            out[key] = float(v)
        elif key == "tol":
            if v == NO_TOL:   # no tolerance rule: EM runs to its budget (an nbcore run with tol=None)
                out[key] = None
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or float(v) not in D.TOLS:
                raise ValueError(f"tol={v!r}: one of {', '.join(f'{x:.0e}' for x in D.TOLS)}, or {NO_TOL!r}")
            out[key] = float(v)
        elif key == "init":
            if v not in D.INITS:
                raise ValueError(f"init={v!r}: one of {', '.join(D.INITS)}")
            out[key] = str(v)
        elif key == "speed":
            if v not in SPEEDS:
                raise ValueError(f"speed={v!r}: one of {', '.join(SPEEDS)}")
            out[key] = str(v)
        elif key == "classroom":
            out[key] = bool(v)
    return out


def lab_css() -> str:
    """The lab's styles: :data:`STYLE_SHEETS` joined (the one-file page inlines them, nblab.site serves them)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in STYLE_SHEETS if p.is_file())


def default_template() -> dict:
    """The chart template when the caller passes none: nblab/template.json (the app's, saved) if it is
    there, else :data:`TEMPLATE`."""
    if TEMPLATE_JSON.is_file():
        try:
            return json.loads(TEMPLATE_JSON.read_text(encoding="utf-8"))
        except ValueError:
            pass
    return TEMPLATE


def page_config(lab_data: dict, settings: dict | None = None, title: str | None = None,
                template: dict | None = None) -> dict:
    """What the page's script reads besides the data: defaults, the controls' choices, the template."""
    name = _dataset_name(lab_data)
    base = {k: v for k, v in D.DEFAULTS.items() if k in SETTING_KEYS}
    base.update(dataset=name, model=_models(lab_data)[0])
    base.update(check_settings(settings, lab_data))
    return {
        "title": nbcore.strip_bidi(title or f"Naive Bayes + EM lab: {name}"),
        "defaults": base,
        "lambdas": list(D.LAMBDAS), "tols": list(D.TOLS) + ([None] if base.get("tol", 0) is None else []),
        "inits": list(D.INITS),
        "initLabels": dict(D.INIT_LABELS), "seedMax": D.SEED_MAX, "maxIterMax": D.MAX_ITER_MAX,
        "datasets": [name], "models": _models(lab_data),
        "template": template if template is not None else default_template(),
    }


def lab_html(lab_data: dict, *, settings: dict | None = None, title: str | None = None,
             template: dict | None = None, plotly_gz: Path | None = None) -> str:
    """The lab page for ``lab_data`` (:func:`nblab.data.lab_data`'s dict): one HTML document, nothing fetched.

    ``settings``: the settings the page opens with where the link says nothing (the URL fragment's keys:
    dataset, model, hidden, lam, init, seed, max_iter, tol, t, speed, classroom; checked here, ValueError
    naming the key). ``title``: the page's title (text). ``template``: the plotly template the charts are
    drawn with (default: nblab/template.json, the app's look).
    """
    cfg = page_config(lab_data, settings, title, template)
    lic = "MIT"
    if PLOTLY_LICENSE.is_file():
        lic = PLOTLY_LICENSE.read_text(encoding="utf-8").strip().splitlines()[0]
    js = bundle.bundle("boot.js")
    css = lab_css().replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
        f"<title>{html.escape(cfg['title'])}</title>\n<style>\n{css}\n</style>\n</head>\n<body>\n"
        "<noscript>This lab runs EM in your browser: it needs JavaScript.</noscript>\n"
        "<div id=\"nblab\" class=\"lab-root\"></div>\n"
        f"<script type=\"text/plain\" id=\"nblab-plotly\" data-licence=\"plotly.js: {html.escape(lic)}\">"
        f"{plotly_b64(plotly_gz)}</script>\n"
        f"<script>{UNPACK_JS}</script>\n"
        f"<script type=\"application/json\" id=\"nblab-data\">{json_for_script(lab_data)}</script>\n"
        f"<script type=\"application/json\" id=\"nblab-config\">{json_for_script(cfg)}</script>\n"
        f"<script>\n{script_text(js)}</script>\n"
        "</body>\n</html>\n")


def write_lab(path, data, *, template: dict | None = None, title: str | None = None, **settings) -> Path:
    """Write the lab page to ``path``. ``data``: a shipped data set's name (its lab data from
    :func:`nblab.data.lab_data`) or a lab-data dict; ``settings``: as :func:`lab_html`'s (``hidden=95``,
    ``lam=0.1``, ``classroom=True``…). Returns the path written."""
    if isinstance(data, str):
        from nblab.data import lab_data
        data = lab_data(data)
    path = Path(path)
    path.write_text(lab_html(data, settings=settings, title=title, template=template), encoding="utf-8")
    return path
