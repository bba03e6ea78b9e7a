"""Download this lesson as one HTML file that works offline: the lab page with the data inlined (nblab.export)."""
from __future__ import annotations

import streamlit as st

from dashboard.lesson import session
from dashboard.ui import controls, state
from nblab.frame import Frame

K_DOWNLOAD_OPEN = "download_open"  # the expander's state: the file is only made when asked for


def show(f: Frame) -> None:
    """A button that downloads the lesson run as it is (or run to convergence) as one .html file, named
    after the iterations it holds."""
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
        # the iteration the file opens at: the one on screen, or where EM stops (computed now, once per
        # run state, on a copy: the file's name says what it holds, t = 0 … that iteration)
        t = converged_at(f.run) if to_end else f.t
        if to_end:
            c1.caption(f"EM stops at t = {t}: the file opens there.")

        def make() -> bytes:  # made only when the button is clicked (nothing is built on every rerun)
            from nblab import export
            return export.export_bytes(lesson, None, t=t, classroom=classroom)

        st.download_button("Download this lesson (HTML)", make, file_name=file_name(f.cfg.dataset, t),
                           mime="text/html", key="dl_lesson_html", on_click="ignore", icon=":material/download:")


def file_name(dataset: str, t: int) -> str:
    """The offline file's name: the data set and the iterations it holds (it opens at the last one)."""
    name = dataset if dataset not in controls.USER_DATA else "my_data"
    return f"nbem_lesson_{name}_{iterations(t)}.html"


def iterations(t: int) -> str:
    """``t0-15`` for iterations 0 … 15, ``t0`` for the initial parameters alone."""
    return f"t0-{int(t)}" if t else "t0"


def converged_at(run) -> int:
    """The iteration where EM stops when ``run`` is stepped on (a copy is stepped; the run does not move)."""
    if run.done:
        return run.iteration

    def compute() -> int:
        import warnings
        copy = run.with_settings()  # shares the snapshots: the page's run does not move
        with st.spinner("Running EM to convergence (on a copy) …"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            copy.run_to_convergence()
        return int(copy.iteration)
    s = run.settings
    return state.memo(("converged_at", id(run), run.iteration, float(run.current.objective), s.theta_tol,
                       s.theta_norm), compute)
