"""α, the parameters at t and the whole history as CSV downloads."""
from __future__ import annotations

import streamlit as st

from dashboard.lesson.panels import download
from dashboard.ui import derive
from nblab.frame import Frame

K_EXPORTS_OPEN = "exports_open"  # the CSV exports expander is open


def show(f: Frame, view) -> None:
    """α, the parameters at t (``view``) and the whole history as CSV downloads."""
    t, snap = f.t, f.snap
    # the buttons are drawn only while the expander is open (opening it reruns the live fragment)
    with st.expander("Export α, β and the history as CSV", expanded=False, key=K_EXPORTS_OPEN, on_change="rerun",
                     icon=":material/download:") as box:
        if not box.open:
            return
        e1, e2, e3 = st.columns(3)
        # callables: the CSV is only made when clicked (nothing is stored on every Play tick)
        names, hist, acc_now = f.prep.class_names, list(f.run.history), list(f.acc)
        e1.download_button(f"α at t={t} (CSV)", lambda: derive.csv_export(derive.alpha_frame(snap, names)),
                           file_name=f"alpha_t{t}.csv", mime="text/csv", key="dl_alpha", on_click="ignore",
                           icon=":material/download:")
        e2.download_button(f"{view.short} at t={t} (CSV)", lambda: derive.csv_export(derive.params_frame(view, names)),
                           file_name=f"params_t{t}.csv", mime="text/csv", key="dl_params", on_click="ignore",
                           icon=":material/download:")
        e3.download_button("History, every iteration (CSV)",
                           lambda: derive.csv_export(derive.history_frame(hist, names, acc_now)),
                           file_name=f"em_history_{download.iterations(f.latest)}.csv", mime="text/csv", key="dl_history", on_click="ignore",
                           icon=":material/download:")
