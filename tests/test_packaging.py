"""The built wheel carries the shipped data sets: `pip install .` then load_dataset works.

Builds the wheel from a copy of the checkout, installs it with --no-deps into a
fresh virtualenv that sees the system site-packages (numpy, scipy, scikit-learn
already there), and loads every shipped data set from a directory outside the
checkout, with NBCORE_DATASETS unset.  Then checks that NBCORE_DATASETS still
overrides the packaged files.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

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
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(v) for v in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "nbcore", src / "nbcore", ignore=ignore)
    shutil.copytree(ROOT / "datasets", src / "datasets", ignore=ignore)
    dist = tmp / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)]
    if _can_build_without_isolation():
        cmd.insert(4, "--no-build-isolation")
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    wheel = next(dist.glob("nbcore-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=120)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
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
