"""Label switching: unsupervised EM finds clusters, not names; match them with linear_sum_assignment."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import switching as switching_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import urlguard

SUBTITLE = "Without labels EM finds groups, but it cannot know which group is called “spam”."


def main() -> None:
    page = page_kit.page_setup(pages.SWITCHING, SUBTITLE)
    dataset, model, seed, smoothing = sidebar()
    prep = page_kit.prepare(dataset, model, 100, 0)  # unsupervised: every label hidden
    mask = prep.y_eval >= 0
    if not mask.any():
        st.warning("This data set has no true labels to compare the clusters with.")
        st.stop()
    K = prep.n_classes
    pred, n_iter, objective = clusters(prep, dataset, model, seed, smoothing)
    yt, yp = prep.y_eval[mask], np.asarray(pred)[mask]
    before, after, mapping = nbcore.aligned_accuracy(yt, yp, K)
    table = nbcore.confusion(yt, yp, K)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Accuracy as labelled", f"{before:.1%}", help="Cluster k read as class k, no matching.")
    m2.metric("Accuracy after matching", f"{after:.1%}", delta=f"{(after - before) * 100:+.1f} pts")
    m3.metric("EM iterations", n_iter)
    m4.metric("Final objective", f"{objective:.2f}")
    show_charts(table, mapping, before, after, prep.class_names, page.fs)
    explain_order(mapping, before, after)
    show_matching(table, mapping, prep.class_names)


def sidebar():
    """The data set, event model, the random start's seed and λ."""
    dataset, model = page_kit.data_and_model("ls")
    seed = urlguard.number_input(st.sidebar, "Seed of the random start", key="ls_seed",
                                 help="Different starts often find the same groups in a different order.")
    smoothing = page_kit.lam_picker("ls_lam")
    return dataset, model, seed, smoothing


def clusters(prep, dataset: str, model: str, seed: int, smoothing: float):
    """EM without labels from a random start, run to convergence: (each document's cluster, iterations,
    final objective); cached for shipped data."""
    def compute(callback):
        em = nbcore.EM(model=model, n_classes=prep.n_classes, smoothing=smoothing, init="random", max_iter=200,
                       random_state=int(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = em.start(prep.X, prep.y_obs)
            run.run_to_convergence(callback=lambda r: callback(r.iteration, em.max_iter))
        return run.predict(), run.iteration, float(run.current.objective)

    return page_kit.cached("switching", (dataset, model, int(seed), float(smoothing)), compute,
                           "Running EM without labels …", shareable=page_kit.is_shared(dataset))


def show_charts(table, mapping, before: float, after: float, names: list[str], FS: int) -> None:
    """The clusters against the true classes twice: read as labelled, and with the best matching outlined."""
    K = len(mapping)
    cluster_names = [f"cluster {c}" for c in range(K)]
    c1, c2 = st.columns(2)
    half = theme.chart_width(FS, 2)  # titles are wrapped for the width the charts get
    counts = np.asarray(table)
    on_diag = int(np.trace(counts))
    matched = int(sum(counts[c, int(mapping[c])] for c in range(K)))
    figures.show_chart(
        c1, figures.cached_figure(switching_charts.confusion_figure, table, cluster_names, names, [(c, c) for c in range(K)], FS,
                                              title="As labelled: cluster k = class k", width=half),
        key="ls_raw", name="Heatmap: documents per cluster (rows) and true class (columns), cluster k read as class k",
        summary=(f"Reading cluster k as class k, {on_diag:,} of {int(counts.sum()):,} documents are on the outlined "
                 f"cells: {before:.1%} accuracy."),
        config={"displayModeBar": False})
    figures.show_chart(
        c2, figures.cached_figure(switching_charts.confusion_figure, table, cluster_names, names,
                                              [(c, int(mapping[c])) for c in range(K)], FS,
                                              title="The matching (outlined) found by linear_sum_assignment",
                                              width=half),
        key="ls_matched", name="Heatmap: the same counts, with the best matching of clusters to classes outlined",
        summary=("The best matching reads " + ", ".join(f"cluster {c} as {names[int(mapping[c])]}" for c in range(K))
                 + f": {matched:,} documents on the outlined cells, {after:.1%} accuracy."),
        config={"displayModeBar": False})


def explain_order(mapping, before: float, after: float) -> None:
    """Whether the clusters came out in the labels' order, and why either is fine for EM."""
    identity = bool(np.all(mapping == np.arange(len(mapping))))
    st.caption("Rows: the clusters EM found; columns: the true labels; each cell counts documents.")
    if identity:
        st.info("With this seed the clusters happen to come out in the same order as the labels: the best matching "
                "is cluster k → class k. Change the seed to see them switch.")
    else:
        st.warning("The clusters came out in a different order from the labels (“label switching”): read as "
                   f"labelled, accuracy is only {before:.1%}, but the same clusters, renamed, give {after:.1%}. "
                   "EM did nothing wrong — the likelihood is exactly the same for any renaming of the classes.")


def show_matching(table, mapping, names: list[str]) -> None:
    """How the matching is found, and the renaming it chose."""
    K = len(mapping)
    cluster_names = [f"cluster {c}" for c in range(K)]
    st.markdown(
        "**The matching.** The table counts documents by (cluster, true label). We look for the one-to-one "
        "renaming of clusters that puts the most documents on the outlined cells — an assignment problem, "
        "solved exactly by the Hungarian algorithm (`scipy.optimize.linear_sum_assignment(table, maximize=True)`). "
        "Accuracy after matching is never lower than before (the identity is one of the renamings it considers).")
    figures.show_light_table(st, pd.DataFrame({"cluster": cluster_names, "→ class": [names[int(m)] for m in mapping],
                                               "documents in cluster": table.sum(axis=1),
                                               "of which that class": [int(table[c, mapping[c]]) for c in range(K)]}))


main()
