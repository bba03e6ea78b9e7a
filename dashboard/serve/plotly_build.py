"""Where the browser loads plotly.js from: the app's own build (:data:`PLOTLY_BUNDLE`, served gzipped from
dashboard/static by Streamlit's static file serving) or, as the fallback, Streamlit's own plotly.js chunk
(the file ``st.plotly_chart`` loads). Read by everything that draws plotly charts in the browser: the
lesson's player, the lean charts (dashboard/pagekit/lean_chart.py) and the early loader (early.py)."""
from __future__ import annotations

import glob
import os
from pathlib import Path

import streamlit
from streamlit import config as st_config


def plotly_chunk() -> str | None:
    """Path (under Streamlit's static root) of Streamlit's own plotly.js chunk, or None."""
    found = sorted(glob.glob(os.path.join(os.path.dirname(streamlit.__file__), "static", "static", "js",
                                          "PlotlyChart.*.js")))
    return "static/js/" + os.path.basename(found[0]) if found else None


#: plotly.js with only the traces the player draws: scatter, bar and heatmap (plotly.js 4.1.1, the
#: version Python's plotly 7.1 targets; MIT). Built by scripts/build_plotly_bundle.sh as plotly.js's
#: CUSTOM_BUNDLE.md describes: 1.2 MB where Streamlit's st.plotly_chart chunk is 4.7 MB and npm's
#: cartesian bundle 1.5 MB, and Chromium evaluates it in about a third of the cartesian bundle's time
#: (a seventh of the chunk's): that evaluation is on the cold load's path. Shipped gzipped (400 KB,
#: ``gzip -9 -n``) and served as it is by Streamlit's static file serving (``server.enableStaticServing``
#: in .streamlit/config.toml, from dashboard/static/): Streamlit does not compress application/gzip, so
#: the server does not gzip the file for every student, and the browser unpacks it (DecompressionStream)
#: and runs it as a script.
PLOTLY_BUNDLE = Path(__file__).resolve().parents[1] / "static" / "plotly-nbem.min.js.gz"


def plotly_sources() -> dict | None:
    """What the browser loads plotly.js from: ``bundle`` (the URL of our plotly.js build under the app's
    static route, or None when it cannot be served) and ``chunk`` (Streamlit's own plotly.js chunk,
    the fallback: always there with st.plotly_chart). None when there is no chunk either."""
    chunk = plotly_chunk()
    if chunk is None:
        return None
    try:
        serving = bool(st_config.get_option("server.enableStaticServing"))
    except Exception:  # pragma: no cover - an option renamed in a future Streamlit
        serving = False
    bundle = "app/static/" + PLOTLY_BUNDLE.name if serving and PLOTLY_BUNDLE.is_file() else None
    return {"bundle": bundle, "chunk": chunk}
