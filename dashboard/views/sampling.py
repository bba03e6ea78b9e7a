"""Sampling: Naive Bayes is generative — draw documents from the learned model, next to real ones."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import sampling as sampling_charts
from dashboard.pagekit import figures, page_kit
from dashboard.ui import derive, page_state, urlguard

SUBTITLE = ("Naive Bayes models p(x, y), so it can *write* documents: pick a class, then draw every "
            "word independently with probability β (eq. 3).")
MODELS = ("bernoulli", "multinomial", "categorical")


@dataclass(frozen=True)
class Model:
    """The model EM learned: α, the event model's parameters, the class each cluster stands for (matched
    to the labels after a start without them), accuracy on the hidden labels, iterations, and the start."""
    alpha: np.ndarray
    params: dict
    mapping: np.ndarray
    acc: float | None
    n_iter: int
    init: str

    @property
    def cluster_of(self) -> dict:
        return {int(self.mapping[c]): c for c in range(len(self.mapping))}  # class label -> cluster index


def main() -> None:
    page = page_kit.page_setup(pages.SAMPLING, SUBTITLE)
    dataset, model, hidden, smoothing, n_per, seed = sidebar()
    prep = page_kit.prepare(dataset, model, hidden, seed)
    learned = learn(prep, dataset, model, hidden, smoothing, seed)
    cap = f"Model learned by EM ({learned.init} start, {learned.n_iter} iterations, λ = {smoothing:g}"
    cap += f", accuracy on the hidden labels {learned.acc:.1%})." if learned.acc is not None else ")."
    st.caption(cap)
    rng = np.random.default_rng([int(seed), draw_number()])
    show_classes(prep, model, learned, n_per, rng, page.fs)
    if getattr(prep.ds, "truth", None):
        st.info("This data set was itself **drawn from a Naive Bayes model**, so samples and real documents are "
                "alike: there is nothing the model cannot express. Try **digits** to see where independent pixels "
                "fall short.")
    else:
        st.info("Samples look *roughly* right word by word but miss what the real documents share: Naive Bayes draws "
                "each word independently given the class, so words that go together (or pixels that form a stroke) "
                "don't come together in the samples.")


def sidebar():
    """The data set, event model, hidden share while learning, λ, documents per class and seed."""
    sb = st.sidebar
    dataset, model = page_kit.data_and_model("smp", models=MODELS)
    hidden = urlguard.slider(sb, "Labels hidden while learning", format="%d%%", key="smp_hidden",
                             help="The model is learned by EM (from the labelled documents, then all).")
    smoothing = page_kit.lam_picker("smp_lam")
    n_per = urlguard.slider(sb, "Documents per class", key="smp_n")
    seed = urlguard.number_input(sb, "Seed", key="smp_seed")
    return dataset, model, hidden, smoothing, n_per, seed


def learn(prep, dataset: str, model: str, hidden: int, smoothing: float, seed: int) -> Model:
    """EM to convergence, from the labelled documents (or a random start without any); cached for shipped data."""
    K = prep.n_classes
    init = "labeled" if (prep.y_obs >= 0).any() else "random"

    def compute(callback):
        em = nbcore.EM(model=model, n_classes=K, smoothing=smoothing, init=init, max_iter=100, random_state=int(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = em.start(prep.X, prep.y_obs)
            run.run_to_convergence(callback=lambda r: callback(r.iteration, em.max_iter))
        pred = run.predict()
        mapping = np.arange(K)
        if init == "random" and (prep.y_eval >= 0).any():  # no labels: name the clusters by matching
            mapping = np.asarray(nbcore.align_clusters(prep.y_eval[prep.y_eval >= 0], pred[prep.y_eval >= 0], K))
        acc = nbcore.hidden_accuracy(mapping[pred], prep.y_eval, prep.y_obs < 0)
        return np.asarray(run.current.alpha), dict(run.current.params), mapping, acc, run.iteration

    alpha, params, mapping, acc, n_iter = page_kit.cached(
        "sampling-model", (dataset, model, int(hidden), float(smoothing), int(seed)), compute,
        "Learning the model with EM …", shareable=page_kit.is_shared(dataset))
    return Model(alpha, params, mapping, acc, n_iter, init)


def draw_number() -> int:
    """The "Draw again" button, and how many times it was pressed in this session."""
    draws = page_state.get("smp", page_state.Sampling)
    if st.button("Draw again", icon=":material/casino:", key="smp_again"):
        draws.draws += 1
    return draws.draws


@dataclass(frozen=True)
class Drawing:
    """What drawing a class's documents needs: the data (dense rows X), the model learned, how many to
    draw, the random generator, the chart font size, and how a row reads as text."""
    prep: object
    X: np.ndarray
    model: str
    learned: Model
    n_per: int
    rng: np.random.Generator
    FS: int
    describe: Callable[[np.ndarray], str]


def show_classes(prep, model: str, learned: Model, n_per: int, rng, FS: int) -> None:
    """Every class's drawn and real documents; with many classes (digits), the ones picked."""
    K, names, alpha, cluster_of = prep.n_classes, prep.class_names, learned.alpha, learned.cluster_of
    d = Drawing(prep, prep.X.toarray() if hasattr(prep.X, "toarray") else np.asarray(prep.X), model, learned, n_per,
                rng, FS, describer(prep, model))
    if K <= 4:
        for k in range(K):
            show_class(d, k, f"### Class **{derive.md_escape(names[k])}** (α = {alpha[cluster_of.get(k, k)]:.2f})")
    else:  # many classes (digits): pick which to show
        pick = st.multiselect("Classes to show", list(range(K)), default=list(range(3)),
                              format_func=lambda k: names[k], key="smp_classes")
        for k in pick:
            show_class(d, k, f"#### Class **{derive.md_escape(names[k])}** (α = {alpha[cluster_of.get(k, k)]:.2f})")


def show_class(d: Drawing, k: int, heading: str) -> None:
    """n_per documents drawn from class k's distribution, next to n_per real documents of class k."""
    prep, model, n_per, rng, FS, Xd, describe = d.prep, d.model, d.n_per, d.rng, d.FS, d.X, d.describe
    K, names, params, cluster_of = prep.n_classes, prep.class_names, d.learned.params, d.learned.cluster_of
    shape = getattr(prep.ds, "image_shape", None)
    c = cluster_of.get(k, k)
    onehot = np.zeros(K)
    onehot[c] = 1.0  # α one-hot: every draw comes from class k
    Xs, _ = nbcore.sample(model, onehot, params, n_per, random_state=rng)
    real_rows = np.flatnonzero(prep.y_eval == k)
    real = Xd[rng.choice(real_rows, size=min(n_per, len(real_rows)), replace=False)] if len(real_rows) else []
    st.markdown(heading)
    left, right = st.columns(2)
    if shape:
        for col, rows, what, tag in ((left, Xs, "Drawn from the model", "sample"), (right, real, "Real documents", "real")):
            ink = [float(np.mean(np.asarray(r, dtype=float))) for r in rows]
            figures.show_chart(
                col, figures.cached_figure(sampling_charts.image_grid_figure, list(rows), [f"{tag} {i + 1}" for i in range(len(rows))],
                                                       tuple(shape), font_size=FS, title=what, cols=6, cell=110),
                key=f"smp_img_{tag}{k}",
                name=f"Images: {what.lower()} of class {names[k]}, {len(rows)} images of {shape[0]}×{shape[1]} pixels",
                summary=(f"{len(rows)} images of {shape[0]}×{shape[1]} pixels; mean pixel value per image from "
                         f"{min(ink):.2f} to {max(ink):.2f}." if ink else "No images."),
                config={"displayModeBar": False})
    else:
        left.markdown("**Drawn from the model**\n\n" + "\n".join(f"{i + 1}. {describe(r)}" for i, r in enumerate(Xs)))
        right.markdown("**Real documents of this class**\n\n"
                       + "\n".join(f"{i + 1}. {describe(r)}" for i, r in enumerate(real)))


def describer(prep, model: str) -> Callable[[np.ndarray], str]:
    """How a document reads as text: its words, or its columns and values, each shown literally in Markdown."""
    cats = getattr(prep.ds, "categories", None)
    event_model = nbcore.get_model(model)
    md_feats = [derive.md_escape(f, 40) for f in prep.feature_names]
    md_cats = [[derive.md_escape(c, 40) for c in cs] for cs in cats] if cats else cats
    return lambda row: event_model.describe_row(row, md_feats, md_cats)


main()
