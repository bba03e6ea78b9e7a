"""nblab/bundle.py: the ES modules of nblab/js/ as one inline classic script, run here under node.

The real modules are bundled and run (their exports reached through the bundle's module table, as the
page and the benchmark reach them); small synthetic modules check each piece of syntax the bundler
translates, the order it writes them in, and the clear errors for what it does not translate.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from nblab import bundle, page

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_node(js: str, timeout: float = 60, ok: bool = True) -> subprocess.CompletedProcess | str:
    """Run a script under node (from a file: a bundle is longer than a command line may be)."""
    with tempfile.NamedTemporaryFile("w", suffix=".js", encoding="utf-8", delete=False) as f:
        f.write(js)
    try:
        p = subprocess.run([NODE, f.name], capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(f.name)
    if not ok:
        return p
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


@needs_node
def test_real_modules_bundle_and_run_in_node():
    js = bundle.bundle("boot.js")
    out = run_node(js + """
const S = NBLab.require("state.js");
const T = S.schema({defaults: {}, lambdas: [0, 0.1, 1], tols: [1e-6], inits: ["labeled"], seedMax: 9, maxIterMax: 10});
const r = S.parseFragment("#lam=0.2&hidden=abc", T);
console.log(JSON.stringify({mods: NBLab.modules, lam: r.settings.lam, n: r.notices.length,
  boot: Object.keys(NBLab.require("boot.js")), panels: NBLab.require("panels/registry.js").PANELS.map(p => p[0])}));
""")
    got = json.loads(out)
    # a module after the modules it imports; the entry last
    mods = got["mods"]
    assert mods[-1] == "boot.js"
    for m in ("state.js", "lab.js", "charts.js", "controls.js", "panels/registry.js"):
        assert m in mods
    assert mods.index("state.js") < mods.index("lab.js") < mods.index("boot.js")
    assert got["lam"] == 0.1 and got["n"] == 2
    assert "start" in got["boot"]
    for p in got["panels"]:
        assert (bundle.JS_DIR / "panels" / f"{p}.js").is_file()


@needs_node
def test_engine_modules_present_run_from_the_bundle():
    """Every module under nblab/js/ (the engine's too) bundles and evaluates in node."""
    srcs = bundle.sources()
    entries = [p for p in srcs if p != bundle.REGISTRY]
    js = bundle.bundle(entries, run_entry=False)
    out = run_node(js + "for (const m of NBLab.modules) NBLab.require(m); console.log(NBLab.modules.length);")
    assert int(out) == len(srcs)          # every file, and the generated panel registry


FILES = {
    "a.js": 'export const A = 1;\nexport let counter = 0;\nexport function bump() { counter += 1; return counter; }\n'
            'export class Box { constructor(v) { this.v = v; } }\nexport async function later() { return 5; }\n'
            'export function* gen() { yield 1; }\n',
    "b.js": 'import { A, bump as up, counter } from "./a.js";\nimport * as NS from "./a.js";\n'
            'const local = 2;\nexport { local as two, up };\nexport { Box } from "./a.js";\n'
            'export const sum = A + local;\nexport function live() { return NS.counter; }\n',
    "sub/c.js": 'import {\n  sum,\n  two,\n} from "../b.js";\nimport "../a.js";\nexport const C = sum * two;\n'
                '// import { nothing } from "./nowhere.js" in a comment is not an import\n'
                'export default function named() { return "d"; }\n',
}


@needs_node
def test_translated_syntax_runs_as_modules_do():
    js = bundle.bundle("sub/c.js", files=FILES)
    out = run_node(js + """
const a = NBLab.require("a.js"), b = NBLab.require("b.js"), c = NBLab.require("sub/c.js");
b.up(); b.up();
console.log(JSON.stringify({C: c.C, two: b.two, sum: b.sum, live: b.live(), counter: a.counter, box: new b.Box(3).v,
  d: c.default(), gen: [...a.gen()], order: NBLab.modules, frozen: Object.keys(b).sort()}));
""")
    got = json.loads(out)
    assert got["C"] == 6 and got["two"] == 2 and got["sum"] == 3 and got["box"] == 3 and got["d"] == "d"
    assert got["live"] == 2 and got["counter"] == 2          # exports are live (getters), as module bindings
    assert got["gen"] == [1]
    assert got["order"] == ["a.js", "b.js", "sub/c.js"]
    assert got["frozen"] == ["Box", "live", "sum", "two", "up"]


@needs_node
def test_each_module_has_its_own_scope_and_strict_mode():
    files = {"x.js": 'const secret = 1;\nexport function f() { return typeof secret; }\n',
             "y.js": 'import { f } from "./x.js";\nexport function g() { return [f(), typeof secret, (function () { return this; })() === undefined]; }\n'}
    out = run_node(bundle.bundle("y.js", files=files) + 'console.log(JSON.stringify(NBLab.require("y.js").g()));')
    assert json.loads(out) == ["number", "undefined", True]


@needs_node
def test_importing_a_name_that_is_not_exported_fails_clearly():
    files = {"x.js": "export const a = 1;\n", "y.js": 'import { b } from "./x.js";\nexport const c = b;\n'}
    p = run_node(bundle.bundle("y.js", files=files), ok=False)
    assert p.returncode != 0 and "imports b from x.js, which does not export it" in p.stderr


@pytest.mark.parametrize("src, what", [
    ('import x from "./a.js";\n', "unsupported import/export syntax"),
    ('export * from "./a.js";\n', "export * is not bundled"),
    ('export default 42;\n', "export default of an unnamed value"),
    ('export const { a, b } = obj;\n', "destructuring export"),
    ('import { a } from "lodash";\n', "never a package"),
    ('import { a } from "./a";\n', "write the file's name in full"),
    ('const m = await import("./a.js");\n', "dynamic import() and import.meta"),
    ('const u = import.meta.url;\n', "dynamic import() and import.meta"),
    ('import { a } from "../../x.js";\n', "leaves nblab/js/"),
])
def test_unsupported_syntax_is_a_clear_error(src, what):
    files = {"a.js": "export const a = 1;\n", "bad.js": src}
    with pytest.raises(bundle.BundleError) as e:
        bundle.bundle("bad.js", files=files)
    assert what in str(e.value) and "nblab/js/bad.js:1" in str(e.value)


def test_cycles_and_missing_files_are_errors():
    with pytest.raises(bundle.BundleError, match="import cycle: p.js → q.js → p.js"):
        bundle.bundle("p.js", files={"p.js": 'import { q } from "./q.js";\nexport const p = 1;\n',
                                     "q.js": 'import { p } from "./p.js";\nexport const q = 2;\n'})
    with pytest.raises(bundle.BundleError, match="which is not there"):
        bundle.bundle("p.js", files={"p.js": 'import { q } from "./gone.js";\n'})


def test_the_panel_registry_lists_the_panels_present_in_the_lessons_order():
    src = bundle._registry_source(["panels/maths.js", "panels/common.js", "panels/params.js", "panels/zzz.js", "state.js"])
    assert src.index("./params.js") < src.index("./maths.js") < src.index("./zzz.js")
    assert "common.js" not in src


def test_script_text_cannot_end_the_script_early():
    assert page.script_text('const s = "</script><img src=x>";') == 'const s = "<\\/script><img src=x>";'
    assert "</script" not in page.script_text(bundle.bundle("boot.js")).lower()
    with pytest.raises(ValueError):
        page.script_text("// <!-- <script>")


# ---- the page (nblab/page.py) ----------------------------------------------------------------------------

def _hostile():
    import numpy as np

    from nblab.data import lab_data_from_arrays
    X = np.eye(6)[[0, 1, 2, 3, 4, 5, 0, 1, 2, 3]]
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, -1, -1])
    return lab_data_from_arrays(X, y, class_names=["</script><img src=x onerror=alert(1)>", "<!--"],
                                feature_names=["\u2028", "&amp;", "a", "b", "c", "d"], name="<b>x</b>")


def test_page_is_one_file_with_nothing_from_the_network():
    import re
    html = page.lab_html(_hostile(), title="<i>t</i>")
    assert "default-src 'none'" in html and "connect-src data: blob:" in html
    # no src= or href= to anywhere: everything is inline
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=""", html, flags=re.I)
    assert "<title>&lt;i&gt;t&lt;/i&gt;</title>" in html
    # the data is JSON in a script block no name can end early
    data = html.split('<script type="application/json" id="nblab-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data and "&" not in data and "\u2028" not in data
    assert json.loads(data)["classNames"][0] == "</script><img src=x onerror=alert(1)>"
    assert html.count("</script>") == html.count("<script")


def test_page_settings_are_checked_and_become_the_defaults():
    cfg = page.page_config(_hostile(), {"hidden": 50, "lam": 0.1, "classroom": True}, None, None)
    assert cfg["defaults"]["hidden"] == 50 and cfg["defaults"]["lam"] == 0.1 and cfg["defaults"]["classroom"] is True
    from nblab import defaults as D
    assert cfg["lambdas"] == D.LAMBDAS and cfg["tols"] == D.TOLS and cfg["inits"] == D.INITS
    for bad in ({"hidden": 150}, {"lam": 0.5}, {"tol": 1}, {"init": "x"}, {"seed": -1}, {"max_iter": 1.5},
                {"model": "gaussian"}, {"dataset": "other"}, {"speed": "warp"}, {"nope": 1}):
        with pytest.raises(ValueError) as e:
            page.page_config(_hostile(), bad, None, None)
        assert list(bad)[0] in str(e.value)


def test_sms_spam_page_is_at_most_2_mb(tmp_path):
    path = page.write_lab(tmp_path / "sms.html", "sms_spam")
    assert path.stat().st_size <= 2_000_000, path.stat().st_size
    html = path.read_text(encoding="utf-8")
    assert json.loads(html.split('id="nblab-config">', 1)[1].split("</script>", 1)[0])["datasets"] == ["sms_spam"]


@needs_node
def test_lab_controller_in_node_follows_nbcore():
    """lab.js (the controller, no DOM) on synthetic_spam under node: three steps, λ mid-run continues
    (history kept) as nbcore's run.with_settings, a hidden-% change rebuilds at t = 0; the notices say which."""
    import numpy as np

    import nbcore
    from nblab.data import lab_data

    data = lab_data("synthetic_spam")
    settings = {"dataset": "synthetic_spam", "model": data["models"][0], "hidden": 90, "lam": 1.0, "init": "labeled",
                "seed": 0, "max_iter": 100, "tol": 1e-6, "t": 0, "speed": "normal", "classroom": False}
    js = bundle.bundle(["lab.js"], run_entry=False) + f"""
const {{ Lab }} = NBLab.require("lab.js");
const lab = new Lab({json.dumps(data)}, {json.dumps(settings)});
const out = {{ a0: Array.from(lab.run.history[0].alpha) }};
for (let i = 0; i < 3; i++) lab.step();
out.kind1 = lab.apply(Object.assign({{}}, lab.settings, {{ lam: 0.1 }}));
out.notice1 = lab.notice.text; out.latest1 = lab.latest;
lab.step(); lab.step();
out.alphas = lab.run.history.map((s) => Array.from(s.alpha));
out.lls = lab.run.history.map((s) => s.logLikelihood);
out.acc = lab.accuracySeries(); out.sup = lab.baselines.supervised;
lab.show(2); out.sentence = lab.sentence();
out.kind2 = lab.apply(Object.assign({{}}, lab.settings, {{ hidden: 50 }}));
out.notice2 = lab.notice.text; out.latest2 = lab.latest;
console.log(JSON.stringify(out));
"""
    got = json.loads(run_node(js, timeout=120))
    ds = nbcore.load_dataset("synthetic_spam")
    model = settings["model"]
    X = ds.for_model(model)
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.9, random_state=0)
    y_obs = np.asarray(y_obs)
    opts = nbcore.get_model(model).suggested_options(X)
    run = nbcore.EM(model=model, n_classes=int(ds.n_classes), smoothing=1.0, init="labeled", random_state=0,
                    max_iter=100, tol=1e-6, model_options=opts).start(X, y_obs)
    for _ in range(3):
        run.step()
    run = run.with_settings(smoothing=0.1)
    for _ in range(2):
        run.step()
    assert got["kind1"] == "continued" and got["latest1"] == 3
    assert "λ changed 1 → 0.1: EM continues from iteration 3" in got["notice1"]
    np.testing.assert_allclose(got["alphas"], [np.asarray(s.alpha) for s in run.history], rtol=1e-9)
    np.testing.assert_allclose(got["lls"], [s.log_likelihood for s in run.history], rtol=1e-9)
    y_true = np.asarray(ds.y)
    acc = [nbcore.hidden_accuracy(np.asarray(run.predict_proba(t=t)).argmax(axis=1), y_true, y_obs < 0)
           for t in range(len(run.history))]
    np.testing.assert_allclose(got["acc"], acc, atol=1e-12)
    alpha, params = nbcore.supervised_fit(model, X, y_obs, int(ds.n_classes), 0.1, **opts)
    sup = nbcore.hidden_accuracy(np.asarray(nbcore.predict_proba(model, alpha, params, X, **opts)).argmax(axis=1), y_true, y_obs < 0)
    assert got["sup"] == pytest.approx(sup, abs=1e-12)
    assert got["sentence"].startswith("Iteration 2 of 5: α ")
    assert got["kind2"] == "rebuilt" and got["latest2"] == 0
    assert got["notice2"] == "Data settings changed (labels hidden 90% → 50%): new run from iteration 0."
