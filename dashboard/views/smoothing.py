"""Smoothing explorer: sweep λ over a log grid (supervised NB and EM at every λ)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import smoothing as smoothing_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import derive, urlguard

SUBTITLE = "λ pseudo-documents per class (eq. 14): what λ = 0 and λ → ∞ do to β and to accuracy."
PER_DECADE = 3


def main() -> None:
    page = page_kit.page_setup(pages.SMOOTHING, SUBTITLE)
    dataset, model, hidden, seed, lams = sidebar()
    prep = page_kit.prepare(dataset, model, hidden, seed)
    if not (prep.y_obs >= 0).any():
        st.warning("Every label is hidden: supervised NB has nothing to count. Lower “Labels hidden”.")
        st.stop()
    res = sweep(prep, dataset, model, hidden, seed, lams)
    B = np.stack([np.asarray(r["beta_supervised"]["beta"], dtype=float) for r in res])  # (L, V, K)
    event_model = nbcore.get_model(model)
    # λ → ∞ pulls every estimate to the symmetric starting point (½ for Bernoulli β, 1/V for multinomial β)
    target = float(np.asarray(event_model.uniform_params(prep.X, prep.n_classes)["beta"]).flat[0])
    words = pick_words(prep, B)
    c1, c2 = st.columns(2)
    beta_chart(c1, prep, B, words, lams, target, page.fs)
    accuracy_chart(c2, prep, res, lams, page.fs)
    st.subheader("The two extremes")
    e1, e2 = st.columns(2)
    with e1:
        lambda_zero(prep, model, res, B)
    with e2:
        lambda_large(event_model, B, lams, target)
    sweep_table(res, B, lams, target)


def sidebar():
    """The data set, event model, hidden share, seed and the grid of λ (with a word on its size)."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("sm", follow_lesson=True)
    hidden = urlguard.slider(sb, "Labels hidden", format="%d%%", key="sm_hidden",
                             help="EM sees the other labels; accuracy is measured on the hidden ones.")
    seed = urlguard.number_input(sb, "Seed (which labels are hidden)", key="sm_seed")
    lo_exp, hi_exp = urlguard.slider(sb, "λ grid: powers of ten", key="sm_range",
                                     help="The grid is λ = 0 plus 10^a … 10^b, three points per decade.")
    lams = [0.0] + [float(v) for v in np.logspace(lo_exp, hi_exp, PER_DECADE * (hi_exp - lo_exp) + 1)]
    sb.caption(f"{len(lams)} values of λ: 0, {lams[1]:g} … {lams[-1]:g}")
    return dataset, model, hidden, seed, lams


def sweep(prep, dataset: str, model: str, hidden: int, seed: int, lams: list[float]) -> list[dict]:
    """Supervised NB and EM at every λ of the grid (cached for shipped data)."""
    score = prep.score_mask

    def compute(callback):
        return nbcore.smoothing_sweep(model, prep.X, prep.y_obs, prep.n_classes, lams,
                                      y_true=prep.y_eval if score.any() else None,
                                      hidden=score if score.any() else None,
                                      init="labeled", max_iter=50, random_state=seed, callback=callback)

    key = (dataset, model, int(hidden), int(seed), tuple(lams))
    return page_kit.cached("sweep", key, compute, "Sweeping λ …", shareable=page_kit.is_shared(dataset))


def pick_words(prep, B) -> list[str]:
    """The words to follow: a word with β = 0 at λ = 0 (if any), the rarest and the commonest, to start with."""
    feats = prep.feature_names
    md_feats = [derive.md_escape(f, 40) for f in feats]  # names in Markdown are shown literally
    # rare and common words (by how many labelled documents contain them)
    Xl = prep.X[prep.y_obs >= 0]
    Xl = Xl.toarray() if hasattr(Xl, "toarray") else np.asarray(Xl)
    freq = (Xl > 0).mean(axis=0)
    rare, common = int(np.argmin(freq)), int(np.argmax(freq))
    default_words = [feats[rare]] + ([feats[common]] if common != rare else [])
    zero_pairs = np.argwhere(B[0] == 0.0)  # a word never seen with a class at λ = 0 (the "impossible" event below)
    if len(zero_pairs) and feats[int(zero_pairs[0][0])] not in default_words:
        default_words.insert(0, feats[int(zero_pairs[0][0])])
    return st.multiselect("Words to follow", feats, default=default_words, key="sm_words",
                           help=f"Pre-selected: a word with β = 0 at λ = 0 (if any), the rarest word (“{md_feats[rare]}”, in "
                                f"{freq[rare]:.0%} of the labelled documents) and the commonest (“{md_feats[common]}”, "
                                f"{freq[common]:.0%}).")


def beta_chart(c1, prep, B, words: list[str], lams: list[float], TARGET: float, FS: int) -> None:
    """β of the words followed against λ, one line per class."""
    names, feats = prep.class_names, prep.feature_names
    betas = {w: B[:, feats.index(w), :] for w in words[:6]}
    if betas:
        first = next(iter(betas))
        b_first = betas[first]
        figures.show_chart(
            c1, figures.cached_figure(smoothing_charts.beta_vs_lambda_figure, lams, betas, names, FS, target=TARGET), key="sm_beta",
            name=f"Line chart: β of {len(betas)} word(s) against the smoothing λ, one line per class",
            summary=(f"β of “{first}” goes from " + ", ".join(f"{n} {b_first[0, k]:.3f}" for k, n in enumerate(names))
                     + " at λ = 0 to " + ", ".join(f"{n} {b_first[-1, k]:.3f}" for k, n in enumerate(names))
                     + f" at λ = {lams[-1]:.4g}: a large λ pulls every β towards {TARGET:g}."),
            config={"displayModeBar": False})
    else:
        c1.info("Pick a word to follow.")


def accuracy_chart(c2, prep, res: list[dict], lams: list[float], FS: int) -> None:
    """Accuracy on the hidden labels against λ, EM and supervised NB, when there are hidden labels."""
    score = prep.score_mask
    if score.any():
        best = int(np.nanargmax([np.nan if r["acc_em"] is None else r["acc_em"] for r in res]))
        figures.show_chart(
            c2, figures.cached_figure(smoothing_charts.accuracy_vs_lambda_figure, lams, [r["acc_supervised"] for r in res],
                                                          [r["acc_em"] for r in res], FS, n_hidden=int(score.sum())),
            key="sm_acc", name="Line chart: accuracy on the hidden labels against the smoothing λ, EM and supervised NB",
            summary=(f"EM's accuracy goes from {theme.pct(res[0]['acc_em'])} at λ = 0 to a peak of "
                     f"{res[best]['acc_em']:.1%} at λ = {lams[best]:.4g} and {theme.pct(res[-1]['acc_em'])} at "
                     f"λ = {lams[-1]:.4g}; supervised NB goes from {theme.pct(res[0]['acc_supervised'])} to "
                     f"{theme.pct(res[-1]['acc_supervised'])}."),
            config={"displayModeBar": False})
        c2.caption(f"Best EM accuracy {res[best]['acc_em']:.1%} at λ = {lams[best]:.4g}; supervised NB at λ = 0: "
                   f"{res[0]['acc_supervised']:.1%}, at λ = {lams[-1]:.4g}: {res[-1]['acc_supervised']:.1%}.")
    else:
        c2.info("No hidden labels to score: raise “Labels hidden” to see accuracy against λ.")


def lambda_zero(prep, model: str, res: list[dict], B) -> None:
    """λ = 0: a word never seen with a class makes that class impossible for every document with it."""
    md_names = [derive.md_escape(n, 40) for n in prep.class_names]
    md_feats = [derive.md_escape(f, 40) for f in prep.feature_names]
    b0 = B[0]
    zeros = np.argwhere(b0 == 0.0)
    ones = np.argwhere(b0 == 1.0)
    st.markdown("#### λ = 0: “impossible” events")
    if len(zeros):
        j, k = (int(v) for v in zeros[0])
        Xall = prep.X.toarray() if hasattr(prep.X, "toarray") else np.asarray(prep.X)
        with_word = Xall[:, j] > 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the impossible documents are the point here
            ex_post = nbcore.predict_proba(model, res[0]["alpha_supervised"], res[0]["beta_supervised"], prep.X)
        n_vetoed = int(np.sum(with_word & (ex_post[:, k] == 0)))
        name, word = md_names[k], md_feats[j]
        st.markdown(
            f"No labelled **{name}** document contains **“{word}”**, so β({word} | {name}) = 0 and "
            f"log β = −∞: the model says a {name} document *can never* contain it. "
            f"**{n_vetoed}** of the {int(with_word.sum())} documents with “{word}” get p({name} | x) = 0, "
            f"whatever their other words say.")
        st.caption(f"{len(zeros)} word–class pairs have β = 0 and {len(ones)} have β = 1 at λ = 0 "
                   "(β = 1: a document of that class *must* contain the word).")
    elif len(ones):
        j, k = (int(v) for v in ones[0])
        st.markdown(f"Every labelled **{md_names[k]}** document contains **“{md_feats[j]}”**, so β = 1 and a "
                    f"{md_names[k]} document *without* it is impossible (log(1 − β) = −∞).")
    else:
        st.markdown("Every word occurs in at least one labelled document of every class here, so λ = 0 creates "
                    "no impossible events on this data. Try **toy_spam** or fewer visible labels.")


def lambda_large(event_model, B, lams: list[float], TARGET: float) -> None:
    """The largest λ: every β near the same value for every class."""
    TARGET_TEXT = "½" if TARGET == 0.5 else f"1/{round(1 / TARGET)}"
    st.markdown(f"#### λ = {lams[-1]:g}: everything → {TARGET_TEXT}")
    dev = float(np.max(np.abs(B[-1] - TARGET)))
    st.markdown(f"With {lams[-1]:g} pseudo-counts per word and class, every β is within **{dev:.3f}** of "
                f"{TARGET_TEXT} = {TARGET:.3f}, the same for every class: the words no longer tell the classes "
                f"apart and the prediction falls back on α.")
    st.latex(event_model.estimate_tex.split(r"\quad")[0] + r"\;\xrightarrow{\lambda\to\infty}\;" + TARGET_TEXT.replace("½", r"\tfrac12"))


def sweep_table(res: list[dict], B, lams: list[float], TARGET: float) -> None:
    """Every λ's accuracies, objective, iterations and distance of β from its limit."""
    L = len(res)
    with figures.lazy_expander(st, "The sweep as a table", key="sm_sweep_table") as opened:
        if not opened:
            return
        df = pd.DataFrame({"λ": lams,
                           "accuracy supervised": [r["acc_supervised"] for r in res],
                           "accuracy EM": [r["acc_em"] for r in res],
                           "EM objective": [r["objective_em"] for r in res],
                           "EM iterations": [r["n_iter"] for r in res],
                           "max |β − limit| (supervised)": [float(np.max(np.abs(B[i] - TARGET))) for i in range(L)]})
        st.dataframe(df, hide_index=True, width="stretch")


main()
