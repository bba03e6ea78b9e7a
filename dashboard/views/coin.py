"""The coin and the prior (the lecture): MLE vs MAP with a Beta prior, λ ⇔ Beta(λ+1, λ+1);
then two coins with hidden identities, EM step by step (Do & Batzoglou 2008)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import nbcore
from dashboard import pages
from dashboard.charts import coin as coin_charts
from dashboard.charts import theme
from dashboard.pagekit import figures, page_kit
from dashboard.ui import page_state, urlguard
from nbcore import coin

SUBTITLE = ("The lecture: estimate p(heads) by maximum likelihood or with a prior — and see that the lab's "
            "smoothing λ is exactly such a prior.")


def main() -> None:
    page = page_kit.page_setup(pages.COIN, SUBTITLE)
    flips, truth = the_flips()
    prior_kind, smoothing, a, b = the_prior()
    st.subheader("1 · One coin: MLE vs MAP")
    seen = one_coin(flips, truth, a, b, page.fs)
    lambda_is_a_prior(seen, smoothing, prior_kind, a, b)
    two_coins(page)


def _shown(df: pd.DataFrame, decimals: int, columns) -> pd.DataFrame:
    """The table as drawn: a column of ``columns`` with a missing number (no flips seen and λ = 0 leave
    θ_MAP undefined) becomes text, with ``decimals`` decimals and an em dash for the missing one — st.dataframe
    would print "None" there. Columns without a missing number stay numbers."""
    out = df.copy()
    for c in columns:
        if out[c].isna().any():
            out[c] = [f"{v:.{decimals}f}" if np.isfinite(v) else "—" for v in out[c]]
    return out


def _number_format(df: pd.DataFrame, decimals: int) -> dict:
    """``decimals`` decimals for the columns of ``df`` that are still numbers (not those _shown made text)."""
    return {c: st.column_config.NumberColumn(format=f"%.{decimals}f") for c in df.columns
            if pd.api.types.is_numeric_dtype(df[c])}


def the_flips():
    """The flips, drawn from a coin (with its true θ) or typed (the last readable ones while the text is
    not): (flips, true θ or None)."""
    sb = st.sidebar
    sb.subheader("The flips")
    source = urlguard.radio(sb, "Flips", key="coin_source", horizontal=True,
                            captions=["drawn from a coin", "type H and T"])
    if source == "random":
        truth = urlguard.slider(sb, "True θ = p(heads)", key="coin_truth")
        n_total = urlguard.slider(sb, "Flips in the sequence", key="coin_total")
        seed = urlguard.number_input(sb, "Seed", key="coin_seed")
        rng = np.random.default_rng(int(seed))
        flips = "".join("H" if u < truth else "T" for u in rng.random(int(n_total)))
    else:
        truth = None
        typed = urlguard.text_input(sb, "Flips (H / T)", key="coin_flips",
                                    help="The lecture's example: α_H heads and α_T tails. Spaces are ignored.")
        try:
            flips = coin.parse_flips(typed)
        except ValueError as e:
            st.error(f"{e} The flips below are the last valid ones (none yet: “HHTH”).")
            flips = coin.parse_flips(page_state.get("coin", page_state.Coin).last_valid)
        else:
            page_state.get("coin", page_state.Coin).last_valid = flips
    return flips, truth


def the_prior():
    """The prior: the lab's λ or any Beta(a, b). Returns (kind, λ or None, a, b)."""
    sb = st.sidebar
    sb.subheader("The prior")
    prior_kind = urlguard.radio(sb, "Prior", key="coin_prior",
                                format_func=lambda v: {"lambda": "the lab's λ", "beta": "any Beta(a, b)"}[v])
    if prior_kind == "lambda":
        smoothing = page_kit.lam_picker("coin_lam")
        a, b = coin.smoothing_as_prior(smoothing)
    else:
        smoothing = None
        a = urlguard.number_input(sb, "a (prior heads + 1)", step=0.5, key="coin_a")
        b = urlguard.number_input(sb, "b (prior tails + 1)", step=0.5, key="coin_b")
    return prior_kind, smoothing, a, b


def one_coin(flips: str, truth, a: float, b: float, FS: int) -> str:
    """MLE and MAP after the flips seen so far (a slider), the prior and posterior, and both estimates
    after each flip. Returns the flips seen."""
    n_total = len(flips)
    if n_total == 0:
        n_seen = 0
        st.info("No flips yet: the posterior is the prior. Type some H and T in the sidebar.")
    else:
        n_seen = st.slider("Flips seen so far", 0, n_total, n_total, key="coin_seen",
                           help="Drag to watch the posterior as the flips come in.")
    seen = flips[:n_seen]
    h, t_ = seen.count("H"), seen.count("T")
    mle = coin.coin_mle(h, t_)
    map_ = coin.coin_map(h, t_, a, b)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Heads α_H", h)
    m2.metric("Tails α_T", t_)
    m3.metric("θ_MLE", "—" if not np.isfinite(mle) else f"{mle:.4f}",
              delta=None if np.isfinite(mle) else "no flip yet", delta_color="off", delta_arrow="off",
              help="α_H / (α_H + α_T): undefined before the first flip.")
    m4.metric("θ_MAP", "—" if not np.isfinite(map_) else f"{map_:.4f}",
              delta=None if np.isfinite(map_) else "every θ is a mode" if h + a == t_ + b == 1 else "two modes: 0 and 1", delta_color="off", delta_arrow="off",
              help="Mode of the posterior Beta(α_H + a, α_T + b): (α_H + a − 1) / (N + a + b − 2).")
    estimate_charts(flips, truth, h, t_, mle, map_, a, b, n_seen, FS)
    # one formula per line: the three side by side are wider than the column at 1280 px
    st.latex(r"\begin{aligned}\theta_{MLE}&=\frac{\alpha_H}{\alpha_H+\alpha_T}\\"
             r"p(\theta\mid D)&\propto\theta^{\alpha_H+a-1}(1-\theta)^{\alpha_T+b-1}"
             r"=\mathrm{Beta}(\alpha_H+a,\ \alpha_T+b)\\"
             r"\theta_{MAP}&=\frac{\alpha_H+a-1}{\alpha_H+\alpha_T+a+b-2}\end{aligned}")
    return seen


def estimate_charts(flips: str, truth, h: int, t_: int, mle: float, map_: float, a: float, b: float, n_seen: int,
                    FS: int) -> None:
    """The prior and the posterior of θ; θ_MLE and θ_MAP after each flip."""
    n_total = len(flips)
    grid = np.linspace(0.0, 1.0, 401)
    c1, c2 = st.columns(2)
    half = theme.chart_width(FS, 2)  # chart text is wrapped for the width the chart gets
    figures.show_chart(
        c1, figures.cached_figure(coin_charts.coin_posterior_figure, grid, coin.posterior_curve(0, 0, a, b, grid),
                                              coin.posterior_curve(h, t_, a, b, grid), mle, map_, truth, FS,
                                              title=f"Prior Beta({a:g}, {b:g}) → posterior Beta({h + a:g}, {t_ + b:g})",
                                              width=half),
        key="coin_post", name=f"Line chart: the prior Beta({a:g}, {b:g}) and the posterior Beta({h + a:g}, {t_ + b:g}) of θ",
        summary=(f"After {h} heads and {t_} tails the posterior of θ peaks at θ_MAP = "
                 + ("—" if not np.isfinite(map_) else f"{map_:.3f}") + "; θ_MLE = "
                 + ("— (no flips yet)" if not np.isfinite(mle) else f"{mle:.3f}")
                 + ("" if truth is None else f"; the true θ is {truth:g}") + "."),
        config={"displayModeBar": False})
    ns = list(range(1, n_total + 1))
    mles = [coin.coin_mle(flips[:n].count("H"), flips[:n].count("T")) for n in ns]
    maps = [coin.coin_map(flips[:n].count("H"), flips[:n].count("T"), a, b) for n in ns]
    figures.show_chart(
        c2, figures.cached_figure(coin_charts.coin_estimates_figure, ns, mles, maps, truth, n_seen, FS, width=half),
        key="coin_path", name="Line chart: θ_MLE and θ_MAP after each flip",
        summary=(f"After the first flip θ_MLE = {mles[0]:.3f} and θ_MAP = {maps[0]:.3f}; after all {len(ns)} flips "
                 f"θ_MLE = {mles[-1]:.3f} and θ_MAP = {maps[-1]:.3f}" + ("" if truth is None else f" (true θ {truth:g})")
                 + "." if ns else "No flips."),
        config={"displayModeBar": False})


def lambda_is_a_prior(seen: str, smoothing, prior_kind: str, a: float, b: float) -> None:
    """The lab's λ as a Beta prior: θ_MAP by the formula next to the engine's β on the flips."""
    h, t_, n_seen = seen.count("H"), seen.count("T"), len(seen)
    st.subheader("2 · The lab's λ is this prior")
    st.markdown(
        "With **Beta(λ + 1, λ + 1)** the MAP estimate is **(α_H + λ) / (N + 2λ)**: λ imaginary heads and λ imaginary "
        "tails added to the counts — exactly eq. (14) of the notes for one word, β = (λ + count) / (2λ + N_k). "
        "Below, the lab's own Bernoulli Naive Bayes engine is fitted on these flips as a one-word data set "
        "(word present = heads, one class): its β is θ_MAP.")
    lam_show = smoothing if smoothing is not None else None
    rows = []
    for lam_v in ([lam_show] if lam_show is not None else []) + [v for v in (0.0, 1.0, 10.0) if v != lam_show]:
        pa, pb = coin.smoothing_as_prior(lam_v)
        by_formula = coin.coin_map(h, t_, pa, pb) if (h + t_ + 2 * lam_v) > 0 else float("nan")
        if n_seen > 0:
            Xc = np.array([[1.0 if f == "H" else 0.0] for f in seen])
            _, params = nbcore.supervised_fit("bernoulli", Xc, np.zeros(n_seen, dtype=int), 2, lam_v)
            engine = float(params["beta"][0, 0])
        else:
            engine = float("nan")
        rows.append({"λ": f"{lam_v:g}", "prior": f"Beta({pa:g}, {pb:g})",
                     "θ_MAP = (α_H + λ)/(N + 2λ)": by_formula, "lab engine β (Bernoulli NB, λ)": engine})
    one_coin = _shown(pd.DataFrame(rows), 4, ["θ_MAP = (α_H + λ)/(N + 2λ)", "lab engine β (Bernoulli NB, λ)"])
    figures.show_light_table(st, one_coin, column_config=_number_format(one_coin, 4))
    if prior_kind == "beta" and a != b:
        st.caption(f"Your Beta({a:g}, {b:g}) is not symmetric: it is {a - 1:g} imaginary heads and {b - 1:g} imaginary "
                   "tails. The lab's λ always adds the same number to both outcomes.")
    st.caption("λ = 0 is Beta(1, 1), the flat prior: MAP = MLE. The more flips, the less the prior matters.")


def two_coins(page: page_kit.PageContext) -> None:
    """Two coins with hidden identities: the sets of flips, the starts, and EM one iteration at a time."""
    st.divider()
    st.subheader("3 · Two coins, identities hidden: EM step by step")
    st.markdown(
        "Someone picks coin A or coin B (you are not told which), flips it 10 times, and repeats. "
        "EM guesses, for each set, **how likely it was coin A** (E-step), then re-counts heads with those weights "
        "(M-step). It is Naive Bayes with two words, H and T, and the coin as the hidden class. "
        "The default flips and start (θ_A = 0.6, θ_B = 0.5) are the classic example of Do & Batzoglou (2008).")
    d1, d2 = st.columns([2, 1])
    sets_text = d1.text_area("Sets of flips, one per line", "\n".join(coin.CLASSIC_FLIPS), key="coin_sets", height=150)
    theta_a0 = d2.slider("Start θ_A", 0.05, 0.95, 0.6, step=0.05, key="coin_ta0")
    theta_b0 = d2.slider("Start θ_B", 0.05, 0.95, 0.5, step=0.05, key="coin_tb0")
    est_pi = d2.toggle("Also estimate π", False, key="coin_pi",
                       help="Also estimate which coin is picked more often (π: how often coin A is picked). Off: "
                            "both coins are taken to be picked equally often.")
    sets, heads, nflip, path = two_coin_path(sets_text, theta_a0, theta_b0, est_pi)
    if theta_a0 == theta_b0:
        st.warning("θ_A = θ_B: both coins explain every set equally well, every responsibility is ½ and EM never "
                   "separates them — the symmetric trap of the note on the uniform start. Move one start.")
    two_coin_step(sets, heads, nflip, path, est_pi, page)


def two_coin_path(sets_text: str, theta_a0: float, theta_b0: float, est_pi: bool):
    """The sets read from the text and EM's path over 20 iterations; a message and a stopped page when a
    line is not flips."""
    try:
        sets = [coin.parse_flips(line) for line in sets_text.splitlines() if line.strip()]
        if not sets:
            raise ValueError("Type at least one line of flips.")
        heads = [s.count("H") for s in sets]
        nflip = [len(s) for s in sets]
        path = coin.two_coin_em(heads, nflip, (theta_a0, theta_b0), estimate_pi=est_pi, n_iter=20)
    except ValueError as e:
        st.error(f"{e} (Each line is one set, e.g. `HTTHHTHTHH`.)")
        st.stop()
    return sets, heads, nflip, path


def two_coin_step(sets, heads, nflip, path, est_pi: bool, page: page_kit.PageContext) -> None:
    """Iteration t in numbers: the E-step's responsibilities and expected counts, the M-step's θ, and the path."""
    FS = page.fs
    t = st.slider("Iteration t", 1, len(path) - 1, 1, key="coin_t",
                  help="Iteration t: the E-step at θ_{t−1}, then the M-step giving θ_t.")
    step, prev = path[t], path[t - 1]
    r = step.resp
    table = pd.DataFrame({
        "set": [f"{i + 1}: {s}" for i, s in enumerate(sets)], "heads": heads, "tails": [n - h_ for n, h_ in zip(nflip, heads)],
        "r(A)": r[:, 0], "r(B)": r[:, 1],
        "A: ≈ heads": r[:, 0] * heads, "A: ≈ tails": r[:, 0] * (np.array(nflip) - heads),
        "B: ≈ heads": r[:, 1] * heads, "B: ≈ tails": r[:, 1] * (np.array(nflip) - heads)})
    # classroom type: the table (9 columns) and the chart each get the page's width
    e1, e2 = (st.container(), st.container()) if page.classroom else st.columns([3, 2])
    with e1:
        st.markdown(f"**E-step at θ_A = {prev.theta[0]:.4f}, θ_B = {prev.theta[1]:.4f}**: "
                    "r(A) = π_A θ_A^h (1−θ_A)^(n−h) / Σ_c π_c θ_c^h (1−θ_c)^(n−h)")
        shown = _shown(table, 2, table.columns[3:])
        figures.show_light_table(st, shown, width_px=theme.chart_width(FS, share=1.0 if page.classroom else 0.6),
                                 column_config=_number_format(shown.iloc[:, 3:], 2), classroom=page.classroom)
        tot = table[["A: ≈ heads", "A: ≈ tails", "B: ≈ heads", "B: ≈ tails"]].sum()
        st.markdown(f"**M-step**: θ_A = {tot['A: ≈ heads']:.2f} / ({tot['A: ≈ heads']:.2f} + {tot['A: ≈ tails']:.2f}) "
                    f"= **{step.theta[0]:.4f}**, θ_B = {tot['B: ≈ heads']:.2f} / ({tot['B: ≈ heads']:.2f} + "
                    f"{tot['B: ≈ tails']:.2f}) = **{step.theta[1]:.4f}**"
                    + (f"; π_A = mean r(A) = **{step.pi[0]:.4f}**" if est_pi else " (π fixed at ½)"))
    with e2:
        figures.show_chart(
            st, figures.cached_figure(coin_charts.two_coin_figure, np.array([s.theta for s in path]), [s.log_likelihood for s in path], t, FS,
                                            width=theme.chart_width(FS) if page.classroom else
                                            theme.chart_width(FS, 1, 2 / 5) - 8),  # the [3, 2] row's right
            key="coin_two", name="Line chart: θ_A, θ_B and the log-likelihood over the EM iterations of the two-coin problem",
            summary=(f"θ_A goes from {path[0].theta[0]:.3f} to {path[-1].theta[0]:.3f} and θ_B from {path[0].theta[1]:.3f} "
                     f"to {path[-1].theta[1]:.3f} in {len(path) - 1} iterations; the log-likelihood rises from "
                     f"{path[0].log_likelihood:.2f} to {path[-1].log_likelihood:.2f}."),
            config={"displayModeBar": False})
    st.caption(f"After {len(path) - 1} iterations: θ_A = {path[-1].theta[0]:.4f}, θ_B = {path[-1].theta[1]:.4f}. "
               "The log-likelihood never goes down (see **Why EM climbs**).")


main()
