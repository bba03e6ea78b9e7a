"""Restarts and local optima: n random starts, final objective vs hidden-label accuracy."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import restarts as restarts_charts
from dashboard.charts import theme
from dashboard.lesson import session
from dashboard.pagekit import figures, page_kit
from dashboard.ui import controls, page_state, urlguard
from nblab import vocabulary

SUBTITLE = "EM climbs the hill it starts on. Start it from many random points and compare where it ends."
MAX_ITER = 100


@dataclass(frozen=True)
class Settings:
    dataset: str
    model: str
    hidden: int
    smoothing: float
    n_starts: int
    seed: int


@dataclass(frozen=True)
class Ends:
    """Where the starts ended: each start's final objective, accuracy (after matching clusters to labels
    when no label is visible; NaN where there are no true labels) and seed, the best start, and the end
    points: starts whose objectives are within ``same`` of each other share a ``level`` (0 the highest)."""
    res: list
    obj: np.ndarray
    acc: np.ndarray
    acc_list: list
    seeds: list
    best: int
    level: np.ndarray
    n_levels: int
    same: float
    unsup: bool

    @property
    def top(self) -> np.ndarray:
        return self.level == 0

    @property
    def has_acc(self) -> bool:
        return bool(np.isfinite(self.acc).any())


def main() -> None:
    page = page_kit.page_setup(pages.RESTARTS, SUBTITLE)
    s = sidebar()
    prep = page_kit.prepare(s.dataset, s.model, s.hidden, s.seed)
    state = page_state.get("rs", page_state.Restarts)
    res = results(s, prep, state)
    e = ends(res, unsup=not (prep.y_obs >= 0).any())
    show_metrics(e)
    if e.has_acc:
        verdict(e, prep.ds)
    selected = st.selectbox("Look at start", range(len(res)), index=e.best, key="rs_pick",
                            format_func=lambda i: f"#{e.seeds[i]}: objective {e.obj[i]:.2f}, accuracy "
                                                  f"{theme.pct(e.acc[i])}, {res[i]['n_iter']} iterations"
                                                  + (" (highest objective)" if i == e.best else ""))
    show_chart(e, selected, page.fs)
    open_button(s, prep, e, selected, state)
    all_starts(e)


def sidebar() -> Settings:
    """The data set, event model, hidden share, λ, number of starts and seed."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("rs")
    hidden = urlguard.slider(sb, "Labels hidden", format="%d%%", key="rs_hidden",
                             help="100 % = unsupervised: the clusters have no names, so accuracy is also shown after "
                                  "the best matching of clusters to labels.")
    smoothing = page_kit.lam_picker("rs_lam")
    n_starts = urlguard.slider(sb, "Random starts", key="rs_n")
    seed = urlguard.number_input(sb, "Seed (hidden labels; starts use seed, seed+1, …)", key="rs_seed")
    return Settings(dataset, model, int(hidden), float(smoothing), int(n_starts), int(seed))


def modelled(ds) -> str:
    """What the event model's x_j are on this data set, in a word: the data set says whether its rows are
    documents (and how they were cut into terms) or images; anything else is features."""
    if getattr(ds, "is_text", False):
        return "words" if ds.pipeline.tokens == "word" else "character n-grams"
    if getattr(ds, "image_shape", None):
        return "pixels"
    return "features"


def results(s: Settings, prep, state: page_state.Restarts) -> list:
    """The restarts for these settings: run when **Run restarts** is pressed, kept in ``state`` until the
    settings change. Until then the page stops with a word on what the button does."""
    score = prep.score_mask
    key = (s.dataset, s.model, s.hidden, s.smoothing, s.n_starts, s.seed)
    go = st.button("Run restarts", icon=":material/play_arrow:", key="rs_go", type="primary",
                   help="Runs EM to convergence from each random start (progress below). Changing a setting "
                        "stops it.")
    if go:
        def compute(callback):
            return nbcore.restarts(s.model, prep.X, prep.y_obs, prep.n_classes, s.n_starts,
                                   y_true=prep.y_eval if score.any() else None, hidden=score if score.any() else None,
                                   smoothing=s.smoothing, max_iter=MAX_ITER, random_state=s.seed, callback=callback)

        state.value = page_kit.cached("restarts", key, compute, "Running EM from random starts …",
                                      shareable=page_kit.is_shared(s.dataset))
        state.config = key
    if state.value is None or state.config != key:
        st.info(f"Press **Run restarts** to run EM from {s.n_starts} random starts"
                + (" (the settings changed since the last run)." if state.value is not None else "."))
        st.stop()
    return state.value


def ends(res: list, unsup: bool) -> Ends:
    """The starts' end points, grouped into levels of (nearly) the same objective."""
    obj = np.array([r["objective"] for r in res], dtype=float)
    acc = [r["acc_aligned"] if unsup else r["acc"] for r in res]
    best = int(np.argmax(obj))
    # EM stops when the objective changes by < tol relative, so starts that reach the same optimum end a
    # little apart: treat objectives within SAME of each other as one end point.
    SAME = 1e-4 * abs(float(obj[best])) + 1e-9
    order = np.argsort(-obj, kind="stable")
    level = np.empty(len(obj), dtype=int)
    n_levels = 0
    for rank, i in enumerate(order):
        if rank == 0 or obj[order[rank - 1]] - obj[i] > SAME:
            n_levels += 1
        level[i] = n_levels - 1
    return Ends(res=res, obj=obj, acc=np.array([np.nan if a is None else a for a in acc], dtype=float), acc_list=acc,
                seeds=[r["seed"] for r in res], best=best, level=level, n_levels=n_levels, same=SAME, unsup=unsup)


def show_metrics(e: Ends) -> None:
    """How many starts, how many end points, the highest objective and its accuracy."""
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Random starts", len(e.res))
    m2.metric("Different end points", e.n_levels,
              help=f"Final objectives closer than {e.same:.2g} (10⁻⁴ relative) count as the same end point.")
    m3.metric("Highest objective", f"{e.obj[e.best]:.2f}",
              help=f"start #{e.seeds[e.best]}; {int(e.top.sum())} start(s) end there")
    m4.metric("Its accuracy", theme.pct(e.acc[e.best]) if e.has_acc else "—",
              delta=None if e.has_acc else vocabulary.WORDS["no_score"], delta_color="off", delta_arrow="off")


def verdict(e: Ends, ds) -> None:
    """Whether a higher objective came with a better classifier, in words."""
    # pairs where the higher objective has the clearly worse classifier
    inv = [(i, j) for i in range(len(e.obj)) for j in range(len(e.obj))
           if e.level[i] < e.level[j] and e.acc[i] < e.acc[j] - 0.005]
    beats_best = [j for (i, j) in inv if e.top[i]]
    if beats_best:
        j = max(beats_best, key=lambda k: e.acc[k])
        st.warning(f"**A higher likelihood did not mean a better classifier here.** The start with the highest "
                   f"objective (#{e.seeds[e.best]}, {e.obj[e.best]:.2f}) scores {e.acc[e.best]:.1%}, but start "
                   f"#{e.seeds[j]} ends lower ({e.obj[j]:.2f}) and scores {e.acc[j]:.1%}. "
                   f"EM maximises the likelihood of the *{modelled(ds)}*; nothing forces its best clusters to be the "
                   "classes we care about.")
    elif inv:
        i, j = max(inv, key=lambda p: e.acc[p[1]] - e.acc[p[0]])
        st.warning(f"**A higher likelihood did not always mean a better classifier.** The best end point is also "
                   f"the most accurate, but lower down start #{e.seeds[i]} ({e.obj[i]:.2f}) scores {e.acc[i]:.1%} "
                   f"while #{e.seeds[j]} ends lower still ({e.obj[j]:.2f}) and scores {e.acc[j]:.1%}.")
    elif e.n_levels > 1:
        st.success(f"Here a higher objective always came with an accuracy at least as good: the best end point "
                   f"(#{e.seeds[e.best]}, {e.acc[e.best]:.1%}) is also the most accurate, and "
                   f"{int((~e.top).sum())} start(s) got stuck lower. Restarts and keeping the best objective paid off "
                   "— but that is not guaranteed (try other settings).")
    else:
        st.info("Every start reached the same end point: on this data, with these settings, EM finds one "
                "hill. Try 100 % hidden, more starts or another data set.")
    if e.unsup:
        raw = np.array([np.nan if r["acc"] is None else r["acc"] for r in e.res])
        swapped = int(np.sum(raw < e.acc - 1e-9))
        if swapped:
            st.caption(f"No labels: accuracy shown after matching clusters to labels. {swapped} start(s) found "
                       "the classes with swapped names (see **Label switching**).")


def show_chart(e: Ends, selected: int, FS: int) -> None:
    """Every start's final objective against its accuracy, the selected one marked."""
    obj, acc_arr, seeds, best = e.obj, e.acc, e.seeds, e.best
    figures.show_chart(
        st, figures.cached_figure(restarts_charts.restarts_figure, obj, e.acc_list, seeds, best, selected, FS, levels=e.level,
                                            acc_label="accuracy on the hidden labels" + (" (after matching)" if e.unsup else "")),
        key="rs_fig", name=f"Scatter plot: the final objective and accuracy of each of the {len(e.res)} starts",
        summary=(f"{len(e.res)} starts end with objectives from {np.nanmin(obj):.2f} to {np.nanmax(obj):.2f} and accuracy "
                 f"from {theme.pct(np.nanmin(acc_arr)) if np.isfinite(acc_arr).any() else '—'} to "
                 f"{theme.pct(np.nanmax(acc_arr)) if np.isfinite(acc_arr).any() else '—'}; the highest objective "
                 f"(start #{seeds[best]}) has accuracy {theme.pct(acc_arr[best])}."),
        config={"displayModeBar": False})


def open_button(s: Settings, prep, e: Ends, selected: int, state: page_state.Restarts) -> None:
    """"Open start #… in “Watch EM learn”": the start becomes the lesson's run, and the page switches to the lesson."""
    def _open(i: int) -> None:
        """Put start i into the lesson view's run slot and set its controls to match."""
        run = e.res[i]["run"]
        init = "random"
        cfg = controls.DataConfig(dataset=s.dataset, model=s.model, hidden_pct=s.hidden, init=init, seed=s.seed,
                                  unlabeled_weight=1.0, max_iter=MAX_ITER, tol=float(run.settings.tol))
        session.lesson().install(cfg, s.smoothing, prep, run,
                                 notice=("rebuilt", f"Opened random start #{e.seeds[i]} from **Restarts & local optima** "
                                                    f"(objective {e.obj[i]:.2f}). Reset would start a new random run."))
        ss = st.session_state
        ss[controls.K_DATASET], ss[controls.K_MODEL], ss[controls.K_HIDDEN] = s.dataset, s.model, s.hidden
        ss[controls.K_LAM], ss[controls.K_INIT], ss[controls.K_SEED] = s.smoothing, init, s.seed
        ss[controls.K_UW], ss[controls.K_MAXIT], ss[controls.K_TOL] = 1.0, MAX_ITER, float(run.settings.tol)
        state.switch_to = {"dataset": s.dataset, "model": s.model, "hidden": str(s.hidden),
                           "lam": controls.fmt_lam(s.smoothing), "init": init, "seed": str(s.seed)}

    st.button(f"Open start #{e.seeds[selected]} in “Watch EM learn”", key="rs_open", icon=":material/open_in_new:",
              on_click=_open, args=(selected,),
              help="Replaces the lesson view's run with this one (all its iterations), ready to scrub.")
    target, state.switch_to = state.switch_to, None
    if target:
        # The lesson view's settings go in the URL (a plain switch_page would try to clear this page's bound
        # parameters, which Streamlit refuses); its widgets also get them via session state (set in _open).
        st.switch_page(pages.LESSON.path, query_params=controls.carry(target))


def all_starts(e: Ends) -> None:
    """Every start's numbers, highest objective first."""
    res = e.res
    with figures.lazy_expander(st, "All starts as a table", key="rs_starts_table") as opened:
        if not opened:
            return
        df = pd.DataFrame({"start (seed)": e.seeds, "final objective": e.obj,
                           "log-likelihood": [r["log_likelihood"] for r in res],
                           "accuracy as labelled": [r["acc"] for r in res],
                           "accuracy after matching": [r["acc_aligned"] for r in res],
                           "iterations": [r["n_iter"] for r in res], "converged": [r["converged"] for r in res]})
        st.dataframe(df.sort_values("final objective", ascending=False), hide_index=True, width="stretch")


main()
