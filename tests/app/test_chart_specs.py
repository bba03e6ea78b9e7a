"""dashboard/charts.py builds plain dict specs (no plotly validation at run time, for speed):
here every spec, in the shapes the lesson page produces, is validated by plotly itself."""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from dashboard.charts import lesson as lesson_charts
from dashboard.charts import theme

rng = np.random.default_rng(0)
FEATS = [f"w{i}" for i in range(30)]


def _specs(fs):
    a = rng.dirichlet(np.ones(3), size=6)
    acc = [np.nan, 0.5, 0.6, 0.7, 0.7, 0.72]
    yield lesson_charts.alpha_figure(a, ["a", "b", "c"], 2, [(3, 0.1)], font_size=fs)
    yield lesson_charts.alpha_figure(rng.dirichlet(np.ones(10), size=1), [str(k) for k in range(10)], None, font_size=fs)
    yield lesson_charts.accuracy_figure(acc, 0.55, 3, font_size=fs, n_hidden=40)
    yield lesson_charts.accuracy_figure([], None, None, font_size=fs)
    yield lesson_charts.likelihood_figure([1, 2, 1.5, 3], [1, 2, 1.5, 3], [1, 1, 1, 0.1], 2, font_size=fs)
    yield lesson_charts.likelihood_figure([-5.0], [-4.0], [1.0], 0, font_size=fs)
    b = rng.random((30, 3))
    yield lesson_charts.beta_bars_figure(b, rng.random((30, 3)), FEATS, ["a", "b", "c"], font_size=fs)
    yield lesson_charts.beta_bars_figure(b, None, FEATS, ["a", "b", "c"], log_scale=False, font_size=fs, n_top=5)
    yield lesson_charts.heatmap_figure(b, FEATS, ["a", "b", "c"], "β", fs)
    yield lesson_charts.heatmap_figure(b * 10 - 5, FEATS, ["a", "b", "c"], "μ", fs, zmin=None, zmax=None)
    yield lesson_charts.digits_figure(rng.random((64, 10)), (8, 8), [str(k) for k in range(10)], "β", fs)
    yield lesson_charts.digits_figure(rng.random((64, 2)), (8, 8), ["x", "y"], "μ", fs, zmin=None, zmax=None)
    yield lesson_charts.truth_figure(rng.random((30, 2)), rng.random((30, 2)), ["a", "b"], "β", fs)


@pytest.mark.parametrize("fs", [15, 22])
def test_every_spec_is_valid_plotly(fs):
    for spec in _specs(fs):
        assert set(spec) == {"data", "layout"}
        fig = go.Figure(spec)  # raises ValueError on any invalid property or value
        assert len(fig.data) == len(spec["data"])
        json.loads(pio.to_json(theme.figure(spec), validate=False))  # what st.plotly_chart sends


def test_figure_hands_the_spec_to_streamlit_unvalidated():
    import plotly.tools

    spec = lesson_charts.accuracy_figure([0.5, 0.6], 0.55, 1)
    assert plotly.tools.return_figure_from_figure_or_data(theme.figure(spec), validate_figure=True) is spec


def test_decrease_markers_in_the_likelihood_spec():
    spec = lesson_charts.likelihood_figure([1, 2, 1.5], [1, 2, 1.5], [1.0, 1.0, 1.0], 2)
    assert any(tr["name"] == "objective decreased!" for tr in spec["data"])
    assert spec["layout"]["showlegend"] is True
