"""Download this lesson as one HTML file that works offline: the lab page with the data inlined (nblab.export)."""
from __future__ import annotations

import streamlit as st

from nblab.frame import Frame
from dashboard.lesson import session
from dashboard.ui import controls

K_DOWNLOAD_OPEN = "download_open"  # the expander's state: the file is only made when asked for


def show(f: Frame) -> None:
    """A button that downloads the lesson run as it is (or run to convergence) as one .html file."""
    with st.expander("Download this lesson (HTML, works offline)", expanded=False, key=K_DOWNLOAD_OPEN,
                     on_change="rerun", icon=":material/download:") as box:
        if not box.open:
            return
        st.caption("One file, the lab: EM runs in the browser that opens it, so a student can hide more labels, change λ, "
                   "the event model, the start and the seed, and Step, Play and drag, with no server and no network "
                   "(from a USB stick or a phone). It opens at this lesson's settings and iteration.")
        c1, c2 = st.columns(2)
        to_end = c1.checkbox("Run to convergence first", value=False, key="download_converge",
                             help="The file opens where EM stops; the run on this page does not move.")
        classroom = c2.checkbox("Classroom fonts", value=f.classroom, key="download_classroom")
        lesson = session.lesson()
        t = None if to_end else f.t

        def make() -> bytes:  # made only when the button is clicked (nothing is built on every rerun)
            from nblab import export
            return export.export_bytes(lesson, None, t=t, classroom=classroom, converge=to_end)

        name = f.cfg.dataset if f.cfg.dataset not in controls.USER_DATA else "my_data"
        at = "converged" if to_end else f"t{f.t}"
        st.download_button("Download this lesson (HTML)", make, file_name=f"nbem_lesson_{name}_{at}.html",
                           mime="text/html", key="dl_lesson_html", on_click="ignore", icon=":material/download:")
