"""A downloaded lesson is the lesson: a plain nbcore run's settings the lab can hold are kept — ``tol=None``
(EM to its budget) becomes the lab's "none", not its default 1e-06 — and the ones it cannot hold (a λ off the
slider's values, a tolerance off its list) are refused, saying why and what to do, instead of a file that
shows other numbers. The file's own settings are read back by the lab's JavaScript (nblab/js/state.js, the code
that fills in the defaults) and its EM (nblab/js/em.js) is run with them under node: it reaches the iteration
nbcore's run reached."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

import nbcore
from nblab import export

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

DRIVER = """
import fs from "node:fs";
import { schema, parseFragment } from "%(root)s/nblab/js/state.js";
import { prepare, startRun } from "%(root)s/nblab/js/em.js";
const html = fs.readFileSync(process.argv[2], "utf8");
const block = (id) => JSON.parse(html.match(new RegExp(`<script type="application/json" id="${id}">([\\\\s\\\\S]*?)</script>`))[1]);
const data = block("nblab-data"), cfg = block("nblab-config");
const { settings: s } = parseFragment("", schema(cfg));
const prep = prepare(data, { model: s.model, hiddenPct: s.hidden, seed: s.seed });
const run = startRun(prep, { lam: s.lam, init: s.init, seed: s.seed, maxIter: s.max_iter, tol: s.tol });
while (!run.done) run.step();
console.log(JSON.stringify({ tol: s.tol, t: run.iteration, stop: run.stopReason }));
"""


def _run(tol, lam=1.0, max_iter=40):
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=lam, init="labeled", max_iter=max_iter, tol=tol,
                    random_state=0).start(ds.X, y)
    run.run_to_convergence()
    return run, ds


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the lab's JavaScript")
def test_tol_none_is_kept_and_the_files_em_runs_as_far_as_the_run(tmp_path):
    run, ds = _run(None)
    assert run.iteration == 40                 # nbcore: no tolerance rule, to the budget
    assert _run(1e-6)[0].iteration < 40        # the lab's default tolerance would have stopped it early
    path = export.export_lesson(run, ds, tmp_path / "lesson.html")
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER % {"root": ROOT.as_posix()})
    out = subprocess.run(["node", str(driver), str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"tol": None, "t": 40, "stop": "max_iter"}


def test_a_file_of_a_run_with_a_tolerance_keeps_it():
    run, ds = _run(1e-4)
    cfg = json.loads(re.search(r'id="nblab-config">(.*?)</script>', export.lesson_page(run, ds), re.S).group(1))
    assert cfg["defaults"]["tol"] == 1e-4 and None not in cfg["tols"]


def test_a_lambda_off_the_sliders_values_is_refused_saying_why():
    run, ds = _run(1e-6, lam=0.5, max_iter=3)
    with pytest.raises(ValueError, match=r"λ = 0\.5 is not one of the lab's λ values \(0, 0\.001, .*, 10\): a file at "
                                         r"another λ would show other numbers"):
        export.lesson_page(run, ds)


def test_a_tolerance_off_the_labs_list_is_refused_saying_why():
    run, ds = _run(3e-6, max_iter=3)
    with pytest.raises(ValueError, match=r"tolerance tol = 3e-06 is not one of the lab's \(1e-02, .*1e-08, or None\)"):
        export.lesson_page(run, ds)


def test_the_page_refuses_a_tolerance_word_it_does_not_know():
    from nblab import page
    with pytest.raises(ValueError, match=r"tol='never': one of 1e-02, .*, or 'none'"):
        page.check_settings({"tol": "never"}, {"name": "x"})


def test_one_lambda_per_feature_is_said_to_change():
    import numpy as np
    ds = nbcore.load_dataset("synthetic_spam")
    y, _ = nbcore.hide_labels(ds.y, fraction=0.9, random_state=0)
    lam = np.linspace(0.1, 1.0, ds.X.shape[1])
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=lam, init="labeled", max_iter=2,
                    random_state=0).start(ds.X, y)
    with pytest.warns(UserWarning, match=r"one λ per feature; the lab has one λ for all, so the file runs at λ = 0\.01"):
        export.lesson_page(run, ds)


def _many_classes(k: int, v: int = 20_000, n: int = 600):
    import numpy as np
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = sp.random(n, v, density=0.002, random_state=1, format="csr")
    X.data[:] = 1
    y = np.full(n, -1)
    y[:k] = np.arange(k)
    return nbcore.EM(model="bernoulli", n_classes=k, smoothing=1.0, init="labeled", max_iter=100,
                     random_state=0).start(X, y), rng


def test_a_lesson_over_the_memory_budget_is_refused_before_a_browser_runs_out():
    from nblab import limits
    run, _ = _many_classes(500)        # β alone: 20,000 words × 500 classes × 8 bytes = 80 MB an iteration
    assert limits.iterations_that_fit(run.Xp, run.current, 500, 2, limits.run_budget_bytes()) < limits.MIN_ITERATIONS
    with pytest.raises(ValueError, match=r"too big for the lab page, whose browser would keep every iteration: "):
        export.lesson_page(run)


def test_a_lesson_that_fits_fewer_iterations_is_capped_and_says_so():
    from nblab import limits
    run, _ = _many_classes(40)
    fits = limits.iterations_that_fit(run.Xp, run.current, 40, 2, limits.run_budget_bytes())
    assert limits.MIN_ITERATIONS <= fits < 100
    with pytest.warns(UserWarning, match=rf"keeps at most {fits:,} iterations .* max iterations is {fits:,}, not 100"):
        page = export.lesson_page(run)
    cfg = json.loads(re.search(r'id="nblab-config">(.*?)</script>', page, re.S).group(1))
    assert cfg["defaults"]["max_iter"] == fits
