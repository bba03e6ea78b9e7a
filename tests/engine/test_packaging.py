"""The built wheel carries the shipped data sets: `pip install .` then load_dataset works.

Builds the wheel from a copy of the checkout, installs it with --no-deps into a
fresh virtualenv that sees the running interpreter's packages (numpy, scipy,
scikit-learn already there, wherever they are installed), and loads every shipped data set from a directory outside the
checkout, with NBCORE_DATASETS unset.  Then checks that NBCORE_DATASETS still
overrides the packaged files.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

CHECK = textwrap.dedent("""
    import json, sys, nbcore
    from nbcore.data import datasets_dir
    out = {"file": nbcore.__file__, "dir": str(datasets_dir()), "sets": {}}
    for name in (sys.argv[1:] or nbcore.list_datasets()):
        try:
            ds = nbcore.load_dataset(name)
            out["sets"][name] = [ds.n_samples, ds.n_features, ds.n_classes, ds.texts is not None]
        except Exception as exc:
            out["sets"][name] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
""")


def _can_build_without_isolation() -> bool:
    """The running interpreter has the setuptools that [build-system] asks for (the test
    extra installs it), so the wheel builds offline; otherwise pip builds it in isolation."""
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


def _see_running_packages(py) -> None:
    """Let the venv at ``py`` import the packages the running interpreter imports (numpy,
    scipy, scikit-learn…), wherever they live: a virtualenv, a system install, a user site.

    ``--system-site-packages`` is not enough: from inside a virtualenv it exposes the base
    interpreter's packages, not the virtualenv's. A ``.pth`` file with the running
    interpreter's site directories appends them *after* the venv's own site-packages, so the
    installed wheel is found first, and it lists plain paths only, so an editable install of
    nbcore in the running environment (a finder loaded by its own ``.pth``) stays out.
    """
    out = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True, timeout=60)
    purelib = Path(out.stdout.strip())
    purelib.mkdir(parents=True, exist_ok=True)
    sites = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    (purelib / "_running_interpreter.pth").write_text("\n".join(sites) + "\n")


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "NOTICE.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "nbcore", src / "nbcore", ignore=ignore)
    shutil.copytree(ROOT / "datasets", src / "datasets", ignore=ignore)
    shutil.copytree(ROOT / "nblab", src / "nblab", ignore=ignore)
    shutil.copytree(ROOT / "dashboard", src / "dashboard", ignore=ignore)
    dist = tmp / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)]
    if _can_build_without_isolation():
        cmd.insert(4, "--no-build-isolation")
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    wheel = next(dist.glob("nbcore-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _see_running_packages(py)
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install",
                          "--no-deps", "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return py, tmp


def _run(py, cwd, names=(), **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ("NBCORE_DATASETS", "PYTHONPATH")}
    env.update(env_changes)
    res = subprocess.run([str(py), "-c", CHECK, *names], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_installed_wheel_loads_every_shipped_data_set(venv_python):
    py, tmp = venv_python
    out = _run(py, cwd=tmp)
    venv = str((tmp / "venv").resolve())
    assert out["file"].startswith(venv), out["file"]  # the wheel, not the checkout
    assert out["dir"].startswith(venv) and out["dir"].endswith("_datasets")
    sets = out["sets"]
    assert set(sets) >= {"toy_spam", "play_tennis", "abcd", "synthetic_spam", "digits",
                         "sms_spam", "udhr_langid"}
    bad = {k: v for k, v in sets.items() if not isinstance(v, list)}
    assert not bad, bad
    assert sets["sms_spam"][0] == 5574 and sets["sms_spam"][2] == 2 and sets["sms_spam"][3]
    assert sets["udhr_langid"][2] == 10 and sets["toy_spam"][:2] == [6, 3]


def test_nbcore_datasets_still_overrides_the_packaged_files(venv_python, tmp_path):
    py, tmp = venv_python
    shutil.copy(ROOT / "datasets/toy_spam.csv", tmp_path / "toy_spam.csv")
    shutil.copy(ROOT / "datasets/toy_spam_queries.csv", tmp_path / "toy_spam_queries.csv")
    out = _run(py, cwd=tmp, names=("toy_spam", "sms_spam"), NBCORE_DATASETS=str(tmp_path))
    assert out["dir"] == str(tmp_path)
    assert out["sets"]["toy_spam"][:2] == [6, 3]
    assert "was not found" in out["sets"]["sms_spam"]  # only what the folder holds


def test_the_wheel_carries_the_licence_and_the_third_party_notice(venv_python):
    """The MIT licence and the list of third-party material (plotly.js build, SMS, UDHR) travel
    with every installed copy; nothing the metadata promises is missing from the wheel."""
    import zipfile

    _, tmp = venv_python
    wheel = next((tmp / "dist").glob("nbcore-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    info = [n for n in names if ".dist-info/" in n]
    licence = next(n for n in info if n.endswith("/LICENSE"))
    notice = next(n for n in info if n.endswith("/NOTICE.md"))
    zf = zipfile.ZipFile(wheel)
    assert "MIT License" in zf.read(licence).decode()
    text = zf.read(notice).decode()
    for shipped in ("plotly", "SMS Spam Collection", "CC BY 4.0", "udhr"):
        assert shipped in text, shipped
    assert not [n for n in names if n.endswith("py.typed")]          # no typing promise made
    assert "nbcore/_datasets/sms_spam.tsv" in names


EXPORT = textwrap.dedent("""
    import json, sys, numpy as np, nbcore, nblab
    from nblab.config import DataConfig
    from nblab.lesson_run import LessonRun
    ds = nbcore.load_dataset("toy_spam")
    y_obs, _ = nbcore.hide_labels(np.asarray(ds.y), fraction=0.5, random_state=0)
    run = nbcore.EM(model=ds.models[0], n_classes=ds.n_classes, random_state=0).start(ds.for_model(ds.models[0]), y_obs)
    run.run_to_convergence()
    path = nblab.export_lesson(run, ds, sys.argv[1])
    lesson = LessonRun()
    lesson.sync(DataConfig("synthetic_spam", "bernoulli", 90, "labeled", 0, 1.0, 100, 1e-6), 1.0)
    lesson.step(2)
    built = nblab.export_lesson(lesson, None, sys.argv[1] + ".lesson.html")
    page = path.read_text(encoding="utf-8")
    print(json.dumps({"nblab": nblab.__file__, "size": len(page), "streamlit": "streamlit" in sys.modules,
                      "dashboard": "dashboard" in sys.modules, "engine": "nblab/js/em.js" in page,
                      "lesson": built.stat().st_size}))
""")


def test_installed_wheel_exports_a_lesson_without_streamlit(venv_python, tmp_path):
    """nblab.export_lesson from the installed wheel, for a plain nbcore run and for a LessonRun built and
    stepped there: the lab's JavaScript, CSS, template and the plotly.js build are package data (the file
    inlines them all), and neither Streamlit nor the app is imported."""
    py, tmp = venv_python
    env = {k: v for k, v in os.environ.items() if k not in ("NBCORE_DATASETS", "PYTHONPATH")}
    res = subprocess.run([str(py), "-c", EXPORT, str(tmp_path / "lesson.html")], cwd=tmp, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["nblab"].startswith(str((tmp / "venv").resolve())), out["nblab"]
    assert out["engine"], "the browser's EM engine is not in the file"
    assert not out["streamlit"] and not out["dashboard"]
    assert out["size"] > 500_000 and out["lesson"] > 500_000  # plotly.js (gzip + base64) is inside


def _tracked_files(folder: str) -> list[str]:
    """The checkout's files under ``folder`` as git tracks them (every file of the folder outside git)."""
    res = subprocess.run(["git", "ls-files", "-z", "--", folder], cwd=ROOT, capture_output=True, timeout=60)
    if res.returncode == 0 and res.stdout:
        return sorted(p for p in res.stdout.decode().split("\0") if p)
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def test_the_wheel_carries_every_file_of_the_engine_the_lesson_core_and_the_app(venv_python):
    """Every tracked file of nbcore, nblab and dashboard (modules, the JavaScript, CSS and JSON they read,
    the plotly.js build) and every shipped data set is in the wheel at its own path, so an installed app
    has everything the checkout's has. A package missing from pyproject's list, or a data file no
    package-data pattern names, fails here."""
    import zipfile

    _, tmp = venv_python
    names = set(zipfile.ZipFile(next((tmp / "dist").glob("nbcore-*.whl"))).namelist())
    wanted = {p: p for folder in ("nbcore", "nblab", "dashboard") for p in _tracked_files(folder)}
    wanted.update({p: "nbcore/_datasets/" + p.split("/", 1)[1] for p in _tracked_files("datasets")})
    missing = sorted(src for src, inside in wanted.items() if inside not in names)
    assert missing == []
    assert len(wanted) > 200 and "dashboard/pagekit/lean_chart.js" in wanted   # the checkout's listing was read


IMPORTS = textwrap.dedent("""
    import importlib, json, pkgutil, sys
    import dashboard
    failed, files = {}, {}
    for info in pkgutil.walk_packages(dashboard.__path__, "dashboard."):
        try:
            files[info.name] = importlib.import_module(info.name).__file__
        except Exception as exc:
            failed[info.name] = f"{type(exc).__name__}: {exc}"
    print(json.dumps({"failed": failed, "files": files}))
""")

APP_RUN = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import dashboard
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(Path(dashboard.__file__).parent / "app.py"), default_timeout=240).run()
    print(json.dumps({"exceptions": [e.message for e in at.exception],
                      "errors": [e.body for e in at.error], "blocks": len(list(at.main))}))
""")


def _installed(py, tmp, script):
    env = {k: v for k, v in os.environ.items() if k not in ("NBCORE_DATASETS", "PYTHONPATH")}
    res = subprocess.run([str(py), "-c", script], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_every_module_of_the_installed_app_imports_from_the_installed_copy(venv_python):
    """Each module of dashboard's packages (found by walking the installed package) imports from the wheel's
    copy, the app's entry file included; no module is found in the checkout. (dashboard/views holds the pages
    Streamlit runs as scripts, by path: the file list above checks them and the next test runs the first.)"""
    py, tmp = venv_python
    out = _installed(py, tmp, IMPORTS)
    assert out["failed"] == {}
    venv = str((tmp / "venv").resolve())
    assert {m: f for m, f in out["files"].items() if not str(Path(f).resolve()).startswith(venv)} == {}
    checkout = {module for module in (
        ".".join(Path(p).with_suffix("").parts[:-1] if p.endswith("__init__.py") else Path(p).with_suffix("").parts)
        for p in _tracked_files("dashboard") if p.endswith(".py") and not p.startswith("dashboard/views/"))}
    assert checkout - set(out["files"]) - {"dashboard"} == set()


def test_the_installed_app_opens_its_first_page(venv_python):
    """The installed app's entry file runs its first page (the lesson) under Streamlit's AppTest without
    an exception or an error box: the JavaScript, CSS and JSON it reads are in the installed copy."""
    py, tmp = venv_python
    out = _installed(py, tmp, APP_RUN)
    assert out["exceptions"] == [] and out["errors"] == []
    assert out["blocks"] > 0
