"""Download this lesson as one HTML file that works offline (dashboard/lesson/export.py)."""
from __future__ import annotations

import streamlit as st

from nblab.frame import Frame
from dashboard.ui import controls

K_DOWNLOAD_OPEN = "download_open"  # the expander's state: the file is only made when asked for


def _page_url() -> str | None:
    """This page's address without its query (the file's link back adds the lesson's settings)."""
    try:
        url = st.context.url
    except Exception:  # an older Streamlit or no browser session (AppTest)
        return None
    return url.split("?")[0] if url and url.startswith(("http://", "https://")) else None


def show(f: Frame) -> None:
    """A button that downloads the lesson run as it is (or run to convergence) as one .html file."""
    with st.expander("Download this lesson (HTML, works offline)", expanded=False, key=K_DOWNLOAD_OPEN,
                     on_change="rerun", icon=":material/download:") as box:
        if not box.open:
            return
        st.caption("One file with every iteration computed so far: the charts, Play, Step and the E/M half-steps, "
                   "the hidden documents, the maths of one document, the settings and the data's source and licence. "
                   "It opens in a browser from a USB stick or a phone, with no server and no network.")
        c1, c2 = st.columns(2)
        to_end = c1.checkbox("Run to convergence first", value=False, key="download_converge",
                             help="Steps a copy of this run until EM stops; the run on this page does not move.")
        classroom = c2.checkbox("Classroom fonts", value=f.classroom, key="download_classroom")
        run, prep, cfg, smoothing = f.run, f.prep, f.cfg, f.smoothing
        doc = st.session_state.get(controls.K_DOC)
        pick = st.session_state.get(controls.K_PARAM_VIEW)
        t = None if to_end else f.t
        url = _page_url()

        def make() -> bytes:  # made only when the button is clicked (nothing is built on every rerun)
            from dashboard.lesson import export
            r = run.with_settings()  # a copy sharing the snapshots: converging it leaves the page's run as it is
            return export.export_bytes(r, prep, cfg=cfg, smoothing=smoothing, t=t, classroom=classroom,
                                       converge=to_end, doc=doc, pick=pick, app_url=url,
                                       acc=None if to_end else list(f.acc), base=f.base)

        name = cfg.dataset if cfg.dataset not in controls.USER_DATA else "my_data"
        st.download_button("Download this lesson (HTML)", make, file_name=f"nbem_lesson_{name}_t{f.latest}.html",
                           mime="text/html", key="dl_lesson_html", on_click="ignore", icon=":material/download:")
