"""The plotly template the app's player draws with, and the lab page too (saved as nblab/template.json).

Made without Streamlit in the process: importing Streamlit makes plotly's default template Streamlit's,
whose colours are placeholders its own frontend fills in (``#000001`` …); nblab/template.json is written
from a process without it (``python -m dashboard.charts.player_template``)."""
from __future__ import annotations

import json
from pathlib import Path

from dashboard.charts import theme

PLAYER_DIR = Path(__file__).resolve().parent.parent / "lesson" / "player"


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def chart_template() -> dict:
    """The app's theme with Streamlit's light theme (``streamlit_theme.json``: fonts, greys, automargin,
    left-aligned titles) merged in, as Streamlit's frontend does for st.plotly_chart, and then the app's
    readable text colours (``theme.TEXT_LAYOUT``, as the server's charts get them)."""
    streamlit_theme = json.loads((PLAYER_DIR / "streamlit_theme.json").read_text(encoding="utf-8"))
    tpl = dict(theme.TEMPLATE)
    # the app's text colours last: Streamlit's grey (#808495) is 3.7:1 on white, theme.TEXT_LAYOUT's ≥ 4.5:1
    tpl["layout"] = _merge(_merge(tpl.get("layout", {}), streamlit_theme), theme.TEXT_LAYOUT)
    return tpl


if __name__ == "__main__":  # rewrite nblab/template.json from the app's theme
    import sys

    if "streamlit" in sys.modules:
        raise SystemExit("Streamlit is imported: its plotly template would replace the app's")
    out = Path(__file__).resolve().parents[2] / "nblab" / "template.json"
    out.write_text(json.dumps(chart_template(), ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")
