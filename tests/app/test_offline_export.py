"""The offline lesson file without a browser (dashboard/lesson/export.py): what it holds, its size, that
data never becomes markup, and that it is made without Streamlit."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

import nbcore
from conftest import ROOT
from dashboard.lesson import export
from nblab.prepare import Prepared

EVIL = "</script><script>alert(1)</script><!--"


def _data_block(page: str, block: str = "nbem-data"):
    m = re.search(rf'<script type="application/json" id="{block}">(.*?)</script>', page, flags=re.S)
    return json.loads(m.group(1))


def _toy(names, feats, texts):
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]] * 4)
    y = np.array([0, 1] * 8)
    y_obs = np.where(np.arange(16) < 4, y, -1)
    ds = SimpleNamespace(name="toy", texts=texts, image_shape=None, categories=None, truth=None, kind="binary",
                         X=X, feature_names=feats, card="**Source:** made up.\n\n**Licence:** CC0.", description="")
    prep = Prepared(ds, X, y_obs, y_obs < 0, y, 2, names, feats)
    run = nbcore.EM(model="bernoulli", n_classes=2, init="labeled", random_state=0).start(X, y_obs)
    run.run_to_convergence()
    return run, prep


def test_hostile_names_stay_data(tmp_path):
    names, feats = [EVIL, "<img src=x onerror=alert(2)>"], ["&lt;b&gt;", "\u2028", "</SCRIPT>"]
    texts = [EVIL + str(i) for i in range(16)]
    run, prep = _toy(names, feats, texts)
    page = export.export_lesson(run, prep, tmp_path / "l.html").read_text(encoding="utf-8")
    # the only tags are the page's own: five scripts, every one closed once
    assert page.lower().count("<script") == 5 and page.lower().count("</script") == 5
    assert "<img" not in page and "<!--" not in page and "\u2028" not in page
    data = _data_block(page)
    assert data["classNames"] == names
    assert data["docs"]["text"][0].startswith(EVIL)
    assert data["card"] == {"source": "made up.", "licence": "CC0.", "card": prep.ds.card}
    # the player's source travels as data too, and comes back unchanged
    assert _data_block(page, "nbem-player-src") == (export.PLAYER_DIR / "player.js").read_text(encoding="utf-8")


def test_nothing_from_the_network(tmp_path):
    run, prep = _toy(["a", "b"], ["x", "y", "z"], None)
    page = export.export_html(export.lesson_data(run, prep))
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_numbers_match_nbcore():
    run, prep = _toy(["a", "b"], ["x", "y", "z"], None)
    d = export.lesson_data(run, prep, t=1)
    assert d["main"]["t"] == 1 and d["main"]["n"] == len(run.history) and d["main"]["done"] is True
    for t, text in enumerate(d["main"]["acc"]):
        acc = nbcore.hidden_accuracy(run.predict(t=t), prep.y_eval, prep.y_obs < 0)
        assert text == f"{acc:.1%}"
    assert d["lls"] == [s.log_likelihood for s in run.history]
    assert len(d["params"]["frames"]) == len(run.history)
    # the maths panel's E-step for its document under θ_{t-1}, as nbcore.explain
    m = d["maths"]
    ex = nbcore.explain(run.model, run.history[0].alpha, run.history[0].params, np.asarray(prep.X[m["doc"]], float))
    assert np.allclose(m["e"][1]["post"], ex.posterior)


def test_maths_same_as_the_app_panel():
    """The offline maths numbers are the lesson's maths panel's (maths.e_step_numbers / m_step_numbers)."""
    from dashboard.lesson.panels import maths

    run, prep = _toy(["a", "b"], ["x", "y", "z"], None)
    d = export.lesson_data(run, prep)["maths"]
    t = len(run.history) - 1
    x = np.asarray(prep.X[d["doc"]], float)
    e = maths.e_step_numbers(run.model, run.history[t - 1].alpha, run.history[t - 1].params, x)
    assert np.allclose(d["e"][t]["post"], e.posterior) and np.allclose(d["e"][t]["joint"], e.log_joint)
    m = maths.m_step_numbers(run.model.name, run.Xp, run.m_step_weights(t), run.history[t].smoothing)
    assert np.allclose(d["m"][t]["alpha"], m.alpha) and np.allclose(d["m"][t]["cw"], m.class_weight)


def test_template_is_the_players():
    from dashboard.lesson import player

    assert export.chart_template() == player.TEMPLATE


def test_link_back_carries_the_settings():
    from nblab.config import DataConfig

    cfg = DataConfig("sms_spam", "bernoulli", 90, "labeled", 3, 1.0, 100, 1e-6)
    url = export.live_url("https://lab.example/lesson?x=1#y", cfg, 0.1, 7, True)
    assert url == ("https://lab.example/lesson?dataset=sms_spam&model=bernoulli&hidden=90&lam=0.1&init=labeled"
                   "&seed=3&uw=1&max_iter=100&tol=1e-06&t=7&classroom=true")
    up = DataConfig("upload", "bernoulli", 90, "labeled", 3, 1.0, 100, 1e-6)
    assert "dataset=" not in export.live_url(None, up, 1.0, 0, False)


@pytest.mark.slow
def test_default_lesson_within_budget(tmp_path):
    from nblab.config import DataConfig
    from nblab.lesson_run import LessonRun

    lr = LessonRun()
    lr.sync(DataConfig("sms_spam", "bernoulli", 90, "labeled", 0, 1.0, 100, 1e-6), 1.0)
    path = export.export_lesson(lr, None, tmp_path / "l.html", converge=True)
    assert path.stat().st_size <= 2_000_000
    assert lr.run.done   # a LessonRun is converged through its own method


def test_made_without_streamlit(tmp_path):
    """nbcore.export_lesson on a plain run and its data set imports neither Streamlit nor the app's pages."""
    code = textwrap.dedent(f"""
        import sys, numpy as np, nbcore
        ds = nbcore.load_dataset("toy_spam")
        y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.5, random_state=0)
        run = nbcore.EM(model=ds.models[0], n_classes=ds.n_classes, random_state=0).start(ds.for_model(ds.models[0]), y_obs)
        run.step()
        p = nbcore.export_lesson(run, ds, {str(tmp_path / 'toy.html')!r})
        print(p.stat().st_size, 'streamlit' in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    size, imported = out.stdout.split()
    assert int(size) > 400_000 and imported == "False"
