"""Several mixture components per class (Nigam et al. 2000 §5) on digits: does EM close the gap
to supervised Naive Bayes, and where it does not, why."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import components as components_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import page_state, urlguard
from nbcore.experiments import compare_components

SUBTITLE = ("One Naive Bayes component per class says every “7” comes from one picture of a 7. Give each "
            "class m components (Nigam et al. 2000, §5) and let EM find the styles.")


def main() -> None:
    page = page_kit.page_setup(pages.COMPONENTS, SUBTITLE)
    dataset, hidden, smoothing, n_seeds, ms = sidebar()
    ds, X = page_kit.dataset_for_model(dataset, "bernoulli")
    y = np.asarray(ds.y_true if ds.y_true is not None else ds.y)
    if not (y >= 0).any():
        st.error(f"{dataset} has no labels, so there is no supervised baseline to compare with. Pick digits.")
        st.stop()
    explain_idea()
    res = comparison(X, y, int(ds.n_classes), dataset, hidden, smoothing, n_seeds, ms)
    show_results(res, ms, hidden, smoothing, page)
    verdict(res, ms)
    explain_why()
    st.subheader("Look inside: the components of each class")
    m_show = st.select_slider("Components to show", [m for m in ms if m > 1] or [2], key="cp_show")
    seed_show = st.selectbox("Seed", res["seeds"], key="cp_seed_show")
    show_pictures(ds, dataset, hidden, smoothing, m_show, seed_show, page.fs)


def sidebar():
    """The data set, hidden share, λ, seeds and the numbers of components per class (at least one)."""
    sb = st.sidebar
    dataset = page_kit.dataset_picker("cp_dataset", models=("bernoulli",))
    hidden = urlguard.select_slider(sb, "Labels hidden (%)", key="cp_hidden")
    smoothing = page_kit.lam_picker("cp_lam")
    n_seeds = urlguard.slider(sb, "Seeds (different hidden labels and starts)", key="cp_seeds")
    ms = urlguard.multiselect(sb, "Components per class m", key="cp_ms")
    if not ms:
        st.warning("Pick at least one number of components in the sidebar.")
        st.stop()
    return dataset, hidden, smoothing, n_seeds, sorted(ms)


def explain_idea() -> None:
    """Components per class, in words and in a formula."""
    st.markdown(
        "**The idea.** Hidden documents are explained by K·m components; a labelled document may only use the m "
        "components of its own class (its responsibility is spread over them, never over another class). "
        "A document's class probability is the sum over that class's components. With m = 1 this is the lab's "
        "ordinary EM.")
    st.latex(r"p(y{=}k\mid x)=\sum_{c\in k} p(c\mid x),\qquad r_{ic}\propto\alpha_c\,p(x_i\mid c)\ \text{ with } "
             r"r_{ic}=0 \text{ for } c\notin y_i \text{ when } x_i \text{ is labelled}")


def comparison(X, y, K: int, dataset: str, hidden: int, smoothing: float, n_seeds: int, ms: list[int]) -> dict:
    """Supervised NB and EM with each m, over the seeds: run once **Run the comparison** was pressed for these
    settings (the page's state remembers them). Until then the page stops with a word on the button."""
    stored = page_state.get("cp", page_state.Result)
    key = (dataset, int(hidden), float(smoothing), int(n_seeds), tuple(ms))
    run_now = st.button("Run the comparison", key="cp_run", type="primary", icon=":material/play_arrow:",
                        help=f"{n_seeds} seeds × ({len(ms)} EM runs + supervised NB). About a second per EM run on digits.")
    if run_now:
        stored.config = key
    if stored.config != key:
        st.info("Press **Run the comparison**.")
        st.stop()
    try:
        return page_kit.cached("components", key, lambda cb: compare_components(
            X, y, K, hidden / 100.0, ms=ms, seeds=range(n_seeds), smoothing=smoothing, callback=cb),
            text="EM with components per class …", shareable=page_kit.is_shared(dataset))
    except ValueError as e:
        st.error(str(e))
        st.stop()


def show_results(res: dict, ms: list[int], hidden: int, smoothing: float, page: page_kit.PageContext) -> None:
    """Accuracy against m (chart) and per seed (table), with each m's mean against supervised NB."""
    FS = page.fs
    sup, em = res["supervised"], res["em"]
    # the table (seed, supervised NB and one column per m) needs half the page at 1280 px; in classroom type
    # the page's width: one above the other
    c1, c2 = (st.container(), st.container()) if page.classroom else st.columns([1, 1])
    em_mean = [float(np.nanmean(np.asarray(e, dtype=float))) for e in em]
    best_m = int(np.nanargmax(em_mean))
    figures.show_chart(
        c1, figures.cached_figure(components_charts.components_accuracy_figure,
            ms, em, sup, FS, width=theme.chart_width(FS) if page.classroom else theme.chart_width(FS, 2)), key="cp_fig",
        name="Chart: accuracy on the hidden labels against the number of components per class m",
        summary=(f"Mean over {len(sup)} seeds: supervised NB {float(np.nanmean(np.asarray(sup, dtype=float))):.1%}; EM "
                 + ", ".join(f"m = {m} {v:.1%}" for m, v in zip(ms, em_mean)) + f" (best: m = {ms[best_m]})."),
        config={"displayModeBar": False})
    table = pd.DataFrame({"seed": res["seeds"], "supervised NB": sup,
                          **{f"EM, m = {m}": em[i] for i, m in enumerate(ms)}})
    with c2:
        st.markdown(f"**Accuracy on the hidden labels** ({hidden}% hidden, λ = {smoothing:g})")
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns[1:]})
        rows = [f"m = {m}: mean {em[i].mean():.1%} ({(em[i].mean() - sup.mean()) * 100:+.1f} pts vs supervised), above supervised "
                f"on {int(np.sum(em[i] > sup))}/{len(sup)} seeds" for i, m in enumerate(ms)]
        st.markdown("\n".join(f"* {r}" for r in rows))


def verdict(res: dict, ms: list[int]) -> None:
    """How far one component per class is from supervised NB, and the best m."""
    sup, em = res["supervised"], res["em"]
    best = int(np.argmax(em.mean(axis=1)))
    if 1 in ms:
        i1 = ms.index(1)
        gap1 = em[i1].mean() - sup.mean()
        text = (f"With one component per class EM ends **{abs(gap1) * 100:.1f} points {'below' if gap1 < 0 else 'above'}** "
                   f"supervised NB. ")
    else:
        text = ""
    text += (f"The best here is **m = {ms[best]}** ({em[best].mean():.1%} against {sup.mean():.1%} for supervised NB"
                f"{', it closes the gap' if em[best].mean() > sup.mean() else ', the gap stays'}).")
    st.success(text, icon=":material/insights:")


def explain_why() -> None:
    """Why one component is not enough, and where more do not help."""
    st.subheader("Why one component is not enough, and where more do not help")
    st.markdown(
        "* **One picture per digit.** With m = 1, β[:, k] is *one* average image. Written 7s with and without a bar, "
        "or 1s straight and slanted, average into a blur; then EM, which must explain the many unlabelled images, "
        "moves a class's β towards whichever big cluster is nearby — and a cluster of (say) slanted 1s can be "
        "captured by the 7 or the 8. Likelihood goes up, accuracy goes down: the model is wrong, so the best "
        "model of the data is not the best classifier.\n"
        "* **m components** let a class keep several pictures, so the unlabelled images go to the style that fits and "
        "stop dragging the class average.\n"
        "* **Where it does not help.** A hidden image may use *any* component, and the labelled images are few "
        "(about 9 per digit at 95 % hidden): a component that starts with little labelled weight can drift to "
        "another digit's style. Then m = 2 can be worse than m = 1 on some seeds, and beyond a few components the "
        "labelled images no longer anchor every component. Look at the seeds where a column falls below the "
        "supervised line, and at the pictures below.")


@st.cache_data(show_spinner=False, max_entries=16)
def component_pictures(dataset: str, hidden: int, smoothing: float, m: int, seed: int):
    d = nbcore.load_dataset(dataset)
    Xd = d.for_model("bernoulli")
    y_obs, _ = nbcore.hide_labels(np.asarray(d.y), fraction=hidden / 100.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = nbcore.EM(n_classes=d.n_classes, smoothing=smoothing, init="labeled", random_state=seed,
                        components_per_class=m, max_iter=200).start(Xd, y_obs)
        run.run_to_convergence()
    return np.asarray(run.current.beta), np.asarray(run.current.alpha)


def show_pictures(ds, dataset: str, hidden: int, smoothing: float, m_show: int, seed_show: int, FS: int) -> None:
    """Every component's β as a picture, and the components' weights (image data sets only)."""
    K = int(ds.n_classes)
    names = [str(c) for c in ds.class_names]
    shape = getattr(ds, "image_shape", None)
    if shape and page_kit.is_shared(dataset):
        beta, alpha = component_pictures(dataset, int(hidden), float(smoothing), int(m_show), int(seed_show))
        figures.show_chart(
            st, figures.cached_figure(components_charts.component_images_figure, beta, tuple(shape), K, int(m_show), names, alpha, FS,
                                                          title=f"β of every component (m = {m_show}, seed {seed_show})"),
            key="cp_images", name=f"Images: β of each of the {K * int(m_show)} components, {shape[0]}×{shape[1]} pixels each",
            summary=(f"{K} classes × {int(m_show)} components; the components' weights α range from "
                     f"{float(np.min(alpha)):.3f} to {float(np.max(alpha)):.3f}."),
            config={"displayModeBar": False})
        st.dataframe(pd.DataFrame(alpha.reshape(K, int(m_show)), index=names,
                                  columns=[f"α, component {j + 1}" for j in range(int(m_show))]).T,
                     width="stretch", column_config={n: st.column_config.NumberColumn(format="%.3f") for n in names})
        st.caption("Each picture is one component's β: the probability that a pixel is dark. Components of one digit "
                   "often differ in slant, thickness or a stroke (a 1 straight or slanted, a 7 with or without a bar). "
                   "A flat grey square is a component that lost all its documents to its neighbours (α ≈ 0): with no "
                   "data its β falls back to ½, the λ pseudo-counts — one reason more components stop helping.")
    else:
        st.caption("Pictures are drawn for image data sets (digits).")


main()
