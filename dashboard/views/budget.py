"""Label-budget curve (Nigam et al. 2000, fig. 1): accuracy vs number of labelled documents."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import budget as budget_charts
from dashboard.charts import event_models as event_models_charts
from dashboard.data import datasets
from dashboard.pagekit import figures, page_kit
from dashboard.ui import page_state, urlguard
from nbcore.models.bernoulli import binarize

SUBTITLE = ("How many labels do you need? Supervised NB on the labelled documents alone vs EM that "
            "also reads the unlabelled rest (Nigam et al. 2000).")
BOTH = "both"


@dataclass(frozen=True)
class Settings:
    dataset: str
    models: list
    smoothing: float
    uw: float
    n_seeds: int


def main() -> None:
    page = page_kit.page_setup(pages.BUDGET, SUBTITLE)
    s = sidebar()
    ds, X_by_model, counted = model_inputs(s.dataset, s.models)
    y_true = np.asarray(ds.y_true if ds.y_true is not None else ds.y)
    known = y_true >= 0
    if known.sum() < 4 or not known.all():
        st.warning("This view needs a data set where every document's true label is known "
                   "(the curve hides all but n of them). Try synthetic_spam or digits.")
        st.stop()
    ns = budget_range(ds.n_classes, len(y_true))
    df = curve(s, X_by_model, y_true, ds.n_classes, ns, counted)
    if len(s.models) > 1:
        models_curves(s, df, ns, counted, page.fs)
    else:
        one_model_curve(s, df, counted, page.fs)


def sidebar() -> Settings:
    """The data set, the event model (or both), λ, the unlabelled weight and the repetitions."""
    sb = st.sidebar
    dataset = page_kit.dataset_picker("lb_dataset", models=("bernoulli", "multinomial"))
    _allowed = [m for m in datasets.models_for(dataset) if m in event_models_charts.MODELS]
    if len(_allowed) == 2:  # both event models fit these data: either one, or both on one chart
        _choices = _allowed + [BOTH]
        if st.session_state.get("lb_model") not in (None, *_choices):
            st.session_state["lb_model"] = _choices[0]
        model = urlguard.radio(sb, "Event model", options=_choices, default=_choices[0], key="lb_model",
                               horizontal=True,
                               format_func=lambda m: "both" if m == BOTH else m,
                               help="“both” draws Bernoulli and multinomial on the same labelled subsets.")
    else:
        model = page_kit.model_picker("lb_model", dataset)
    models = list(event_models_charts.MODELS) if model == BOTH else [model]
    smoothing = page_kit.lam_picker("lb_lam")
    uw = urlguard.slider(sb, "Unlabelled weight", key="lb_uw",
                         help="How much an unlabelled document counts in the M-step (Nigam's EM-λ; 0 = ignore them, "
                              "which makes EM the same as supervised NB).")
    n_seeds = urlguard.slider(sb, "Repetitions (seeds)", key="lb_seeds",
                              help="Each repetition labels a different random subset; the band shows min–max.")
    return Settings(dataset, models, smoothing, uw, n_seeds)


def model_inputs(dataset: str, models: list):
    """(the data set, each model's input X, whether the text's words are counted for a counts model)."""
    ds, X = page_kit.dataset_for_model(dataset, models[0])
    X_by_model = {models[0]: X}
    for m in models[1:]:
        X_by_model[m] = page_kit.dataset_for_model(dataset, m)[1]
    counted = False
    reads = {m: nbcore.get_model(m).input_kind for m in models}
    if getattr(ds, "is_text", False) and "counts" in reads.values() and ds.pipeline.binary:
        # on text a model made for counts (multinomial) reads the word counts, one made for presence
        # (Bernoulli) their presence: the same words, each model's own event
        try:
            counts = datasets.get_dataset(dataset, ds.pipeline.replace(binary=False)).X
            for m, kind in reads.items():
                if kind == "counts":
                    X_by_model[m] = counts
                elif kind == "binary":
                    X_by_model[m] = binarize(counts)
            counted = True
        except ValueError as e:
            st.error(str(e))
            st.stop()
    return ds, X_by_model, counted


def budget_range(K: int, N: int) -> list[int]:
    """The label budgets to draw, from the sidebar's range of the possible ones."""
    budgets = [n for n in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) if K <= n < N // 2] or [max(1, min(K, N - 1))]
    lo_n, hi_n = st.sidebar.select_slider("Labelled documents: from … to", budgets, value=(budgets[0], budgets[-1]),
                                          key="lb_range")
    return [n for n in budgets if lo_n <= n <= hi_n]


def curve(s: Settings, X_by_model: dict, y_true, K: int, ns: list[int], counted: bool) -> pd.DataFrame:
    """Every run of the curve (a row per model, budget and seed): computed when **Draw the curve** is pressed
    and kept until the settings change. Until then the page stops with a word on what the button does."""
    models, n_seeds, smoothing, uw = s.models, s.n_seeds, s.smoothing, s.uw
    stored = page_state.get("lb", page_state.Result)
    # "baselines": the rows also hold the majority class and supervised NB at the leave-one-out λ
    key = (s.dataset, tuple(models), counted, float(smoothing), float(uw), int(n_seeds), tuple(ns), "baselines")
    go = st.button("Draw the curve", icon=":material/play_arrow:", key="lb_go", type="primary",
                   help=f"{len(ns)} budgets × {n_seeds} seeds × {len(models)} event model(s) = "
                        f"{len(ns) * n_seeds * len(models)} supervised fits and EM runs.")
    if go:
        def compute(callback):
            rows = []
            for i, m in enumerate(models):
                def part(done, total, i=i):  # one progress bar over every model's runs
                    callback(i * total + done, len(models) * total)
                rows += [{**r, "model": m} for r in nbcore.label_budget_curve(
                    m, X_by_model[m], y_true, ns, list(range(int(n_seeds))), K, smoothing=smoothing,
                    unlabeled_weight=uw, max_iter=50, callback=part)]
            return rows

        res = page_kit.cached("budget", key, compute, "Fitting …", shareable=page_kit.is_shared(s.dataset))
        stored.config, stored.value = key, res
    if stored.value is None or stored.config != key:
        st.info(f"Press **Draw the curve**: {len(ns)} label budgets × {n_seeds} seeds"
                + (" (the settings changed since the last curve)." if stored.value is not None else "."))
        st.stop()
    return pd.DataFrame(stored.value)


def models_curves(s: Settings, df: pd.DataFrame, ns: list[int], counted: bool, FS: int) -> None:
    """Both event models' curves on one chart, EM's accuracy with the fewest labels, and every run."""
    models, n_seeds, uw = s.models, s.n_seeds, s.uw
    curves = {}
    for m in models:
        g = df[df.model == m].groupby("n_labelled")
        curves[m] = {what: {"mean": g[col].mean().tolist(), "lo": g[col].min().tolist(), "hi": g[col].max().tolist()}
                     for what, col in (("supervised", "acc_supervised"), ("em", "acc_em"))}
    figures.show_chart(
        st, figures.cached_figure(budget_charts.budget_models_figure, ns, curves, FS, n_seeds=int(n_seeds), uw=uw), key="lb_fig",
        name="Line chart: accuracy on the hidden labels against the number of labelled documents, per event model",
        summary=" ".join(f"{event_models_charts.MODEL_TITLES[m].capitalize()}: EM {curves[m]['em']['mean'][0]:.1%} and "
                         f"supervised {curves[m]['supervised']['mean'][0]:.1%} with {ns[0]} labels; "
                         f"{curves[m]['em']['mean'][-1]:.1%} and {curves[m]['supervised']['mean'][-1]:.1%} with "
                         f"{ns[-1]}." for m in models) + f" Means over {int(n_seeds)} seeds.",
        config={"displayModeBar": False})
    cols = st.columns(len(models))
    best_sup = df[["acc_supervised", "acc_supervised_cv", "acc_majority"]].max(axis=1)
    for m, col in zip(models, cols):
        c = curves[m]
        best = best_sup[df.model == m].groupby(df.n_labelled[df.model == m]).mean().to_numpy()
        gain = np.asarray(c["em"]["mean"]) - best   # against the best supervised baseline, as the lesson
        col.metric(f"{event_models_charts.MODEL_TITLES[m].capitalize()} EM with {ns[0]} labels", f"{c['em']['mean'][0]:.1%}",
                   delta=f"{gain[0] * 100:+.1f} pts vs best supervised")
    st.caption("Both event models see the same labelled documents at each budget and seed"
               + (" and the same words (multinomial: their counts; Bernoulli: whether they occur)." if counted
                  else ".") + " Accuracy is measured on the documents left unlabelled.")
    with figures.lazy_expander(st, "Every run", key="lb_runs_table") as opened:
        if opened:
            st.dataframe(df, hide_index=True, width="stretch")


def one_model_curve(s: Settings, df: pd.DataFrame, counted: bool, FS: int) -> None:
    """EM against supervised NB (with the baselines) over the budgets, and what EM gained."""
    n_seeds, uw, smoothing = s.n_seeds, s.uw, s.smoothing
    agg = df.groupby("n_labelled").agg(sup_mean=("acc_supervised", "mean"), sup_lo=("acc_supervised", "min"),
                                       sup_hi=("acc_supervised", "max"), em_mean=("acc_em", "mean"),
                                       em_lo=("acc_em", "min"), em_hi=("acc_em", "max"),
                                       cv_mean=("acc_supervised_cv", "mean"), maj_mean=("acc_majority", "mean")).reset_index()
    fig = figures.cached_figure(budget_charts.budget_figure,
        agg["n_labelled"].tolist(),
        {"mean": agg["sup_mean"], "lo": agg["sup_lo"], "hi": agg["sup_hi"]},
        {"mean": agg["em_mean"], "lo": agg["em_lo"], "hi": agg["em_hi"]}, FS, n_seeds=int(n_seeds), uw=uw,
        cv=agg["cv_mean"].tolist(), majority=agg["maj_mean"].tolist(), lam=float(smoothing))
    gain = agg["em_mean"] - agg["sup_mean"]
    i_best = int(np.argmax(gain.to_numpy()))
    figures.show_chart(
        st, fig, key="lb_fig",
        name="Line chart: accuracy on the hidden labels against the number of labelled documents, EM and supervised NB",
        summary=(f"With {int(agg['n_labelled'][0])} labels EM reaches {agg['em_mean'][0]:.1%} against "
                 f"{agg['sup_mean'][0]:.1%} for supervised NB; with {int(agg['n_labelled'].iloc[-1])}, "
                 f"{agg['em_mean'].iloc[-1]:.1%} against {agg['sup_mean'].iloc[-1]:.1%}. The biggest gain, "
                 f"{gain[i_best] * 100:+.1f} points, is at {int(agg['n_labelled'][i_best])} labels "
                 f"(means over {int(n_seeds)} seeds)."),
        config={"displayModeBar": False})
    gain_summary(s, df, agg, gain, i_best, counted)


def gain_summary(s: Settings, df: pd.DataFrame, agg: pd.DataFrame, gain, i_best: int, counted: bool) -> None:
    """EM's accuracy with the fewest and the most labels, the biggest gain, and the gain over the best
    supervised baseline."""
    smoothing = s.smoothing
    # the best supervised baseline of each run (at the run's λ, at the leave-one-out λ, or the majority class)
    df["acc_best_supervised"] = df[["acc_supervised", "acc_supervised_cv", "acc_majority"]].max(axis=1)
    best = df.groupby("n_labelled")["acc_best_supervised"].mean().to_numpy()
    gain_best = agg["em_mean"].to_numpy() - best
    # the headline compares EM with the best supervised baseline, as the lesson does: supervised NB at the run's
    # λ alone flatters EM wherever that λ over-smooths (the chart still draws both)
    j_best = int(np.argmax(gain_best))
    m1, m2, m3 = st.columns(3)
    m1.metric(f"EM with {int(agg['n_labelled'][0])} labels", f"{agg['em_mean'][0]:.1%}",
              delta=f"{gain_best[0] * 100:+.1f} pts vs best supervised")
    # the label fits the column at 1280 px; where the gain is and what it is against go on the line under it
    m2.metric("Biggest gain", f"{gain_best[j_best] * 100:+.1f} pts",
              delta=f"at {int(agg['n_labelled'][j_best])} labels, vs best supervised", delta_color="off")
    m3.metric(f"EM with {int(agg['n_labelled'].iloc[-1])} labels", f"{agg['em_mean'].iloc[-1]:.1%}",
              delta=f"{gain_best[-1] * 100:+.1f} pts vs best supervised")
    st.markdown("**Against the best supervised baseline** (per run, the best of supervised NB at λ = "
                f"{float(smoothing):g}, at the λ leave-one-out picks on the labelled documents, and the majority class): "
                + ", ".join(f"{int(n)} labels {g * 100:+.1f} pts" for n, g in zip(agg["n_labelled"], gain_best))
                + ". " + ("Where that gain is under 1 point, the unlabelled documents add little."
                          if (gain_best < 0.01).any() else ""))
    if (gain < -0.005).any():
        st.warning("At some budgets EM is **worse** than supervised NB: when the model's assumptions don't fit, "
                   "many unlabelled documents can pull the classes somewhere else. Try a lower unlabelled weight.")
    st.caption("With few labels, the unlabelled documents carry most of the information EM uses; with many labels "
               "the two curves meet. Accuracy is measured on the documents left unlabelled."
               + (" The multinomial reads the words' counts." if counted else ""))
    with figures.lazy_expander(st, "Every run", key="lb_runs_table") as opened:
        if opened:
            st.dataframe(df, hide_index=True, width="stretch")


main()
