"""bound.js's climb (the "Why EM climbs" panel's numbers) is nbcore.bound.climb, run the way the lab runs.

For every shipped data set (``nbcore.list_datasets()``) and a teacher's CSV of continuous columns read with
``nbcore.read_csv`` (the Gaussian model, and Bernoulli on x > 0), every event model the lesson offers it: the
lesson's default (start from the labelled documents, λ = 0.01, 90 % hidden), three steps, the climb at
t ∈ {0, 1, 3} (3: the latest iteration, whose θ_{t+1} is not made yet). On the small sets (toy_spam, abcd,
play_tennis, the CSV) also: λ = 0 from the labelled documents (50 and 99 % hidden) (L(θ_0) = −∞ where a hidden document is
impossible under every class, so the M-step's gain is +∞), a random start with 99 % hidden, hidden rows
weighted w = 0.5, and λ changed after the steps (the climb uses the run's current λ).

Both engines run their own EM; nothing is fed across. Compared: L(θ_t), the bound after the E-step, the bound
after the M-step and L(θ_{t+1}) to RTOL = 1e-9 relative (equal infinities pass); the M-step's gain and the
gap, differences of two such numbers, to RTOL · |L|.

Checked from the maths, not from either program's climb (on nbcore's run and on the engine's numbers):
* the bound is tight after the E-step: F(q_t, θ_t) = L(θ_t), and L(θ_t) is the snapshot's own objective
  (the run's observed log-likelihood, eq. 15-17, plus the log prior: another code path);
* the M-step's gain ≥ 0 and the gap ≥ 0, up to rounding (ROUNDING · |L|), so L never goes down;
* L(θ_{t+1}) is the next snapshot's objective where the run made that step at the same λ;
* the gap is Σ_hidden w KL(q_i ‖ p(· | x_i, θ_{t+1})), computed here from the responsibilities that made
  θ_{t+1} and the log posteriors under θ_{t+1} (the model's log p(x_i | k) + log α_k) (labelled rows add log p(x_i, y_i) to both sides: 0).

Also: a served run (the app's lesson program) climbs as nbcore with hidden rows weighted w = 0.5 on the server.

Time: about 5 s of CPU in all (the python side loads spam_assassin, the largest share).
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import warnings
from dataclasses import dataclass, replace

import numpy as np
import pytest
from scipy.special import logsumexp

import nbcore
from kit import ROOT
from nbcore import bound
from nblab import served
from nblab.config import DataConfig
from nblab.data import lab_data
from nblab.prepare import build_run

NODE = shutil.which("node")
DRIVER = ROOT / "tests" / "lab" / "bound_driver.mjs"
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")

RTOL = 1e-9
#: a difference of two numbers of size |L| summed over N rows is exact to well under this share of |L|
ROUNDING = 1e-11
STEPS = 3
TS = (0, 1, 3)
UPLOAD = "upload_csv"
SMALL = {"toy_spam", "abcd", "play_tennis", UPLOAD}


@dataclass(frozen=True)
class Spec:
    model: str
    init: str = "labeled"
    lam: float = 0.01
    hidden: int = 90
    uw: float = 1.0
    lam_after: float | None = None


def _specs(name, ds) -> list[Spec]:
    out = [Spec(m) for m in ds.models]
    if name in SMALL:
        for m in ds.models:
            out += [Spec(m, lam=0.0, hidden=50), Spec(m, lam=0.0, hidden=99), Spec(m, init="random", lam=1.0, hidden=99), Spec(m, uw=0.5),
                    Spec(m, lam=1.0, lam_after=0.1)]
    return out


def _upload_csv(folder):
    """A teacher's CSV: three measurements of two kinds of plant, centred on zero (so Bernoulli's x > 0 splits
    them), two decimals."""
    rng = np.random.default_rng(5)
    rows = []
    for label, centre in (("short", -0.6), ("tall", 0.7)):
        X = rng.normal(centre, 0.8, (30, 3)) * np.array([1.0, 2.0, 0.5])
        rows += [(x, label) for x in X]
    path = folder / "plants.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("height,width,leaf,kind\n")
        for x, label in rows:
            f.write(",".join(f"{v:.2f}" for v in x) + f",{label}\n")
    return nbcore.read_csv(path, label_column="kind")


def _nbcore_run(name, ds, spec: Spec):
    cfg = DataConfig(dataset=name, model=spec.model, hidden_pct=spec.hidden, init=spec.init, seed=0,
                     unlabeled_weight=spec.uw, max_iter=100, tol=None)
    _, run = build_run(cfg, spec.lam, load=lambda _name, _text: ds)
    for _ in range(STEPS):
        run.step()
    if spec.lam_after is not None:
        run = run.with_smoothing(spec.lam_after)
    return run


def _close(a: float, b: float, atol: float = 0.0) -> bool:
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= max(RTOL * abs(b), atol)


def _kl_gap(run, t: int) -> float:
    """Σ_hidden w_i KL(q_i ‖ p(· | x_i, θ_{t+1})) with q the responsibilities that made θ_{t+1}."""
    q = np.asarray(run.responsibilities(t + 1))
    snap = run.history[t + 1]
    joint = np.asarray(run.model.log_likelihood(run.Xp, snap.params)) + np.log(snap.alpha)
    log_post = joint - logsumexp(joint, axis=1, keepdims=True)   # in logs: a posterior can underflow to 0
    hidden = run.y < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(q > 0, q * (np.log(q) - log_post), 0.0)
    return float(run.unlabeled_weight * terms[hidden].sum())


def _property_failures(where, c, objectives, same_lam, run=None) -> list[str]:
    """What the maths says of one climb (c: t, objective_before, bound_before, bound_after, objective_after);
    objectives: the snapshots' objectives, same_lam[t]: snapshot t's log prior is at the climb's λ."""
    t, ob, bb, ba, oa = c
    t = int(t)
    out = []
    scale = max(abs(v) for v in (ob, bb, ba, oa) if math.isfinite(v)) if any(map(math.isfinite, (ob, oa))) else 1.0
    tiny = ROUNDING * max(scale, 1.0)
    if same_lam[t] and not _close(ob, objectives[t], tiny):
        out.append(f"{where} t={t}: L(θ_t) {ob!r} is not the snapshot's objective {objectives[t]!r}")
    if not _close(bb, ob, tiny):
        out.append(f"{where} t={t}: the bound after the E-step {bb!r} is not L(θ_t) {ob!r}")
    gain, gap = ba - bb, oa - ba
    if not (gain >= -tiny) and not (math.isinf(ob) and gain == math.inf):
        out.append(f"{where} t={t}: the M-step lowered the bound by {-gain!r}")
    if not (gap >= -tiny):
        out.append(f"{where} t={t}: the gap {gap!r} is negative: the bound is above L(θ_t+1)")
    if not (oa >= ob - tiny):
        out.append(f"{where} t={t}: L went down from {ob!r} to {oa!r}")
    if t + 1 < len(objectives) and same_lam[t + 1]:
        if not _close(oa, objectives[t + 1], tiny):
            out.append(f"{where} t={t}: L(θ_t+1) {oa!r} is not snapshot {t + 1}'s objective {objectives[t + 1]!r}")
    if run is not None and t + 1 < len(run.history) and same_lam[t + 1]:
        kl = _kl_gap(run, t)
        if not abs(gap - kl) <= tiny:
            out.append(f"{where} t={t}: the gap {gap!r} is not the KL divergence {kl!r}")
    return out


def _datasets(folder):
    for name in nbcore.list_datasets():
        yield name, nbcore.load_dataset(name)
    yield UPLOAD, _upload_csv(folder)


def test_climb_matches_nbcore_on_every_data_set(tmp_path):
    runs, refs = [], []
    for name, ds in _datasets(tmp_path):
        data = tmp_path / f"{name}.json"
        data.write_text(json.dumps(lab_data(ds, texts=False)), encoding="utf-8")
        for spec in _specs(name, ds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # λ = 0: documents impossible under every class
                run = _nbcore_run(name, ds, spec)
                climbs = []
                for t in TS:
                    c = bound.climb(run, t)
                    climbs.append((t, c.objective_before, c.bound_before, c.bound_after, c.objective_after))
            runs.append({"data": str(data), "model": spec.model, "hiddenPct": spec.hidden, "seed": 0,
                         "init": spec.init, "lam": spec.lam, "uw": spec.uw, "steps": STEPS, "ts": list(TS),
                         "lamAfter": spec.lam_after})
            refs.append((f"{name} {spec}", run, climbs))
    config = tmp_path / "runs.json"
    config.write_text(json.dumps({"runs": runs}), encoding="utf-8")
    got = json.loads(subprocess.run([NODE, str(DRIVER), str(config)], capture_output=True, text=True, check=True,
                                    timeout=300).stdout)
    assert len(got) == len(refs)
    failures, infinite, worst = [], 0, 0.0
    for (where, run, climbs), js in zip(refs, got):
        py_obj = [s.objective for s in run.history]
        js_obj = [float(v) for v in js["objectives"]]
        py_same = [s.smoothing == run.smoothing for s in run.history]
        js_same = [lam == js["lam"] for lam in js["lams"]]
        for ref, mine in zip(climbs, js["climbs"]):
            assert not isinstance(mine, dict), f"{where}: the engine refused t = {ref[0]}: {mine['error']}"
            mine = tuple(float(v) for v in mine)
            assert mine[0] == ref[0]
            scale = max([abs(v) for v in ref[1:] if math.isfinite(v)] + [1.0])
            for i, what in enumerate(("L(θ_t)", "bound after E", "bound after M", "L(θ_t+1)"), start=1):
                if math.isfinite(ref[i]) and ref[i] != 0:
                    worst = max(worst, abs(mine[i] - ref[i]) / abs(ref[i]))
                if not _close(mine[i], ref[i]):
                    failures.append(f"{where} t={ref[0]} {what}: node {mine[i]!r}, nbcore {ref[i]!r}")
            for what, a, b in (("gain", mine[3] - mine[2], ref[3] - ref[2]), ("gap", mine[4] - mine[3], ref[4] - ref[3])):
                if not _close(a, b, RTOL * scale):
                    failures.append(f"{where} t={ref[0]} {what}: node {a!r}, nbcore {b!r}")
            infinite += math.isinf(ref[1])
            failures += _property_failures(where + " (nbcore)", ref, py_obj, py_same, run)
            failures += _property_failures(where + " (node)", mine, js_obj, js_same)
    print(f"\n{len(refs)} runs, {len(refs) * len(TS)} climbs; largest relative difference node − nbcore: {worst:.1e}")
    assert not failures, "\n".join(failures[:20])
    assert infinite >= 2, "the λ = 0 starts with an impossible document must be among the cases"
    assert len({r[0].split()[0] for r in refs}) == len(nbcore.list_datasets()) + 1


def test_a_served_run_climbs_as_nbcore_with_hidden_rows_weighted(tmp_path):
    """The app's lesson program: the browser's run adopts the server's θ_t (served.js) and its climb panel
    computes from it. With hidden rows weighted w = 0.5 on the server, the browser's climb is nbcore's: the
    weight travels with θ_0's record (the lab's own controller starts its runs at w = 1)."""
    name = "toy_spam"
    cfg = DataConfig(dataset=name, model="bernoulli", hidden_pct=50, init="labeled", seed=0, unlabeled_weight=0.5,
                     max_iter=100, tol=None)
    _, run = build_run(cfg, 1.0)
    first = served.first_record(run)
    for _ in range(3):
        run.step()
    data = tmp_path / "data.json"
    data.write_text(json.dumps(lab_data(name, texts=False)), encoding="utf-8")
    settings = {"dataset": name, "model": "bernoulli", "hidden": 50, "lam": 1.0, "init": "labeled", "seed": 0,
                "max_iter": 100, "tol": 1e-6, "t": 0, "speed": "normal", "classroom": False}
    script = "\n".join([
        f"import {{ Lab }} from {json.dumps((ROOT / 'nblab' / 'js' / 'lab.js').as_uri())};",
        f"import {{ servedEngine }} from {json.dumps((ROOT / 'nblab' / 'js' / 'served.js').as_uri())};",
        f"import {{ climb }} from {json.dumps((ROOT / 'nblab' / 'js' / 'bound.js').as_uri())};",
        "import { readFileSync } from 'node:fs';",
        "const c = JSON.parse(readFileSync(0, 'utf8'));",
        "const lab = new Lab(JSON.parse(readFileSync(c.data, 'utf8')), c.settings, servedEngine(c.first));",
        "lab.run.deliver(c.records);",
        "for (let k = 0; k < c.records.length; k++) lab.compute();",
        "process.stdout.write(JSON.stringify([0, 1, 2, 3].map((t) => { const x = climb(lab.run, t);",
        "  return [x.objectiveBefore, x.boundBefore, x.boundAfter, x.objectiveAfter]; })));"])
    payload = {"data": str(data), "settings": settings, "first": first, "records": served.records(run, 0)}
    got = json.loads(subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(payload),
                                    capture_output=True, text=True, check=True, timeout=120).stdout)
    for t, mine in enumerate(got):
        c = bound.climb(run, t)
        ref = (c.objective_before, c.bound_before, c.bound_after, c.objective_after)
        assert all(_close(a, b) for a, b in zip(mine, ref)), (t, mine, ref)
    # the weight matters here: at w = 1 the same start climbs from another L(θ_0)
    assert not _close(bound.climb(build_run(replace(cfg, unlabeled_weight=1.0), 1.0)[1], 0).objective_before, got[0][0])
