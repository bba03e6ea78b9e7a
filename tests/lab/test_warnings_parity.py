"""warnings.js's α drift is nblab.advice.alpha_drift (the app's rule), on random priors and labels."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from kit import ROOT
from nblab import advice

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")


def test_alpha_drift_matches_the_app_s_rule():
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(200):
        K = int(rng.integers(2, 6))
        n = int(rng.integers(0, 80))
        y = np.full(200, -1)
        y[:n] = rng.integers(0, K, n)
        alpha = rng.dirichlet(np.ones(K))
        cases.append({"K": K, "y": y.tolist(), "alpha": alpha.tolist()})
    js = ROOT / "nblab" / "js" / "warnings.js"
    script = "\n".join([
        f"import {{ alphaDrift }} from {json.dumps(js.as_uri())};",
        "import { readFileSync } from 'node:fs';",
        "const cases = JSON.parse(readFileSync(0, 'utf8'));",
        "process.stdout.write(JSON.stringify(cases.map((c) => alphaDrift(c.alpha, c.y, c.K))));"])
    out = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(cases), capture_output=True,
                         text=True, check=True, timeout=120).stdout
    got = json.loads(out)
    drifted = 0
    for c, js_d in zip(cases, got):
        py = advice.alpha_drift(np.array(c["alpha"]), np.array(c["y"]), c["K"])
        assert [d["k"] for d in js_d] == [d.k for d in py]
        for a, b in zip(js_d, py):
            assert a["share"] == pytest.approx(b.share, abs=1e-15) and a["allowed"] == pytest.approx(b.allowed, abs=1e-15)
        drifted += bool(py)
    assert 20 < drifted < 190  # both verdicts are exercised
