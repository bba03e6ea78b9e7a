"""Restarts and local optima: n random starts, final objective vs hidden-label accuracy."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard.ui import controls, figures, page_kit, urlguard
from dashboard.charts import restarts as restarts_charts
from dashboard.charts import theme
from dashboard import pages
from dashboard.lesson import session

PAGE = page_kit.page_setup(pages.RESTARTS,
                         "EM climbs the hill it starts on. Start it from many random points and compare where it ends.")
FS = PAGE.fs  # chart font size (larger in classroom mode)

sb = st.sidebar
dataset = page_kit.dataset_picker("rs_dataset", "synthetic_spam", models=("bernoulli", "multinomial"))
model = page_kit.model_picker("rs_model", dataset)
hidden = urlguard.slider(sb, "Labels hidden", 0, 100, 100, step=5, format="%d%%", key="rs_hidden",
                   help="100 % = unsupervised: the clusters have no names, so accuracy is also shown after "
                        "the best matching of clusters to labels.")
smoothing = page_kit.lam_picker("rs_lam", 1.0)
n_starts = urlguard.slider(sb, "Random starts", 2, 40, 10, key="rs_n")
seed = urlguard.number_input(sb, "Seed (hidden labels; starts use seed, seed+1, …)", 0, 9999, 0, key="rs_seed")
max_iter = 100

prep = page_kit.prepare(dataset, model, hidden, seed)


def modelled(ds) -> str:
    """What the event model's x_j are on this data set, in a word: the data set says whether its rows are
    documents (and how they were cut into terms) or images; anything else is features."""
    if getattr(ds, "is_text", False):
        return "words" if ds.pipeline.tokens == "word" else "character n-grams"
    if getattr(ds, "image_shape", None):
        return "pixels"
    return "features"

score = prep.score_mask
unsup = not (prep.y_obs >= 0).any()
key = (dataset, model, int(hidden), float(smoothing), int(n_starts), int(seed))

go = st.button("Run restarts", icon=":material/play_arrow:", key="rs_go", type="primary",
               help="Runs EM to convergence from each random start (progress below). Changing a setting "
                    "stops it.")
if go:
    def compute(callback):
        return nbcore.restarts(model, prep.X, prep.y_obs, prep.n_classes, int(n_starts),
                               y_true=prep.y_eval if score.any() else None, hidden=score if score.any() else None,
                               smoothing=smoothing, max_iter=max_iter, random_state=int(seed), callback=callback)

    res = page_kit.cached("restarts", key, compute, "Running EM from random starts …",
                         shareable=page_kit.is_shared(dataset))
    st.session_state["rs_result"] = (key, res)

stored = st.session_state.get("rs_result")
if not stored or stored[0] != key:
    st.info(f"Press **Run restarts** to run EM from {n_starts} random starts"
            + (" (the settings changed since the last run)." if stored else "."))
    st.stop()
res = stored[1]

obj = np.array([r["objective"] for r in res], dtype=float)
acc = [r["acc_aligned"] if unsup else r["acc"] for r in res]
seeds = [r["seed"] for r in res]
best = int(np.argmax(obj))
acc_arr = np.array([np.nan if a is None else a for a in acc], dtype=float)
has_acc = np.isfinite(acc_arr).any()

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
top = level == 0

m1, m2, m3, m4 = st.columns(4)
m1.metric("Random starts", len(res))
m2.metric("Different end points", n_levels,
          help=f"Final objectives closer than {SAME:.2g} (10⁻⁴ relative) count as the same end point.")
m3.metric("Highest objective", f"{obj[best]:.2f}", help=f"start #{seeds[best]}; {int(top.sum())} start(s) end there")
m4.metric("Its accuracy", theme.pct(acc_arr[best]) if has_acc else "—")

if has_acc:
    # pairs where the higher objective has the clearly worse classifier
    inv = [(i, j) for i in range(len(obj)) for j in range(len(obj))
           if level[i] < level[j] and acc_arr[i] < acc_arr[j] - 0.005]
    beats_best = [j for (i, j) in inv if top[i]]
    if beats_best:
        j = max(beats_best, key=lambda k: acc_arr[k])
        st.warning(f"**A higher likelihood did not mean a better classifier here.** The start with the highest "
                   f"objective (#{seeds[best]}, {obj[best]:.2f}) scores {acc_arr[best]:.1%}, but start "
                   f"#{seeds[j]} ends lower ({obj[j]:.2f}) and scores {acc_arr[j]:.1%}. "
                   f"EM maximises the likelihood of the *{modelled(prep.ds)}*; nothing forces its best clusters to be the "
                   "classes we care about.")
    elif inv:
        i, j = max(inv, key=lambda p: acc_arr[p[1]] - acc_arr[p[0]])
        st.warning(f"**A higher likelihood did not always mean a better classifier.** The best end point is also "
                   f"the most accurate, but lower down start #{seeds[i]} ({obj[i]:.2f}) scores {acc_arr[i]:.1%} "
                   f"while #{seeds[j]} ends lower still ({obj[j]:.2f}) and scores {acc_arr[j]:.1%}.")
    elif n_levels > 1:
        st.success(f"Here a higher objective always came with an accuracy at least as good: the best end point "
                   f"(#{seeds[best]}, {acc_arr[best]:.1%}) is also the most accurate, and "
                   f"{int((~top).sum())} start(s) got stuck lower. Restarts and keeping the best objective paid off "
                   "— but that is not guaranteed (try other settings).")
    else:
        st.info("Every start reached the same end point: on this data, with these settings, EM finds one "
                "hill. Try 100 % hidden, more starts or another data set.")
    if unsup:
        raw = np.array([np.nan if r["acc"] is None else r["acc"] for r in res])
        swapped = int(np.sum(raw < acc_arr - 1e-9))
        if swapped:
            st.caption(f"No labels: accuracy shown after matching clusters to labels. {swapped} start(s) found "
                       "the classes with swapped names (see **Label switching**).")

sel_default = best
selected = st.selectbox("Look at start", range(len(res)), index=sel_default, key="rs_pick",
                        format_func=lambda i: f"#{seeds[i]}: objective {obj[i]:.2f}, accuracy "
                                              f"{theme.pct(acc_arr[i])}, {res[i]['n_iter']} iterations"
                                              + (" (highest objective)" if i == best else ""))
figures.show_chart(
    st, restarts_charts.restarts_figure(obj, acc, seeds, best, selected, FS, levels=level,
                                        acc_label="accuracy on the hidden labels" + (" (after matching)" if unsup else "")),
    key="rs_fig", name=f"Scatter plot: the final objective and accuracy of each of the {len(res)} starts",
    summary=(f"{len(res)} starts end with objectives from {np.nanmin(obj):.2f} to {np.nanmax(obj):.2f} and accuracy "
             f"from {theme.pct(np.nanmin(acc_arr)) if np.isfinite(acc_arr).any() else '—'} to "
             f"{theme.pct(np.nanmax(acc_arr)) if np.isfinite(acc_arr).any() else '—'}; the highest objective "
             f"(start #{seeds[best]}) has accuracy {theme.pct(acc_arr[best])}."),
    config={"displayModeBar": False})


def _open(i: int) -> None:
    """Put start i into the lesson view's run slot and set its controls to match."""
    run = res[i]["run"]
    init = "random"
    cfg = controls.DataConfig(dataset=dataset, model=model, hidden_pct=int(hidden), init=init, seed=int(seed),
                              unlabeled_weight=1.0, max_iter=max_iter, tol=float(run.settings.tol))
    session.lesson().install(cfg, float(smoothing), prep, run,
                      notice=("rebuilt", f"Opened random start #{seeds[i]} from **Restarts & local optima** "
                                         f"(objective {obj[i]:.2f}). Reset would start a new random run."))
    ss = st.session_state
    ss[controls.K_DATASET], ss[controls.K_MODEL], ss[controls.K_HIDDEN] = dataset, model, int(hidden)
    ss[controls.K_LAM], ss[controls.K_INIT], ss[controls.K_SEED] = float(smoothing), init, int(seed)
    ss[controls.K_UW], ss[controls.K_MAXIT], ss[controls.K_TOL] = 1.0, max_iter, float(run.settings.tol)
    ss["rs_switch"] = {"dataset": dataset, "model": model, "hidden": str(int(hidden)), "lam": controls.fmt_lam(smoothing),
                       "init": init, "seed": str(int(seed))}


st.button(f"Open start #{seeds[selected]} in “Watch EM learn”", key="rs_open", icon=":material/open_in_new:", on_click=_open, args=(selected,),
          help="Replaces the lesson view's run with this one (all its iterations), ready to scrub.")
target = st.session_state.pop("rs_switch", None)
if target:
    # The lesson view's settings go in the URL (a plain switch_page would try to clear this page's bound
    # parameters, which Streamlit refuses); its widgets also get them via session state (set in _open).
    st.switch_page(pages.LESSON.path, query_params=pages.carry(target))

with st.expander("All starts as a table"):
    df = pd.DataFrame({"start (seed)": seeds, "final objective": obj,
                       "log-likelihood": [r["log_likelihood"] for r in res],
                       "accuracy as labelled": [r["acc"] for r in res],
                       "accuracy after matching": [r["acc_aligned"] for r in res],
                       "iterations": [r["n_iter"] for r in res], "converged": [r["converged"] for r in res]})
    st.dataframe(df.sort_values("final objective", ascending=False), hide_index=True, width="stretch")
