"""The lab as a static site (nblab/site.py) and its command (``python -m nblab.publish``).

The assets are checked against their sources (the bundle the one-file page inlines, the shipped plotly.js
build, the two style sheets) and their names against the SHA-256 of their bytes; the shell is parsed as
HTML (no inline data, no script that runs, relative URLs, a strict CSP); publishing writes, refuses and
replaces folders as documented; the command's exit codes and messages are those a teacher sees.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from nblab import bundle, page, site
from nblab.data import lab_data

ROOT = Path(__file__).resolve().parents[2]


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text inside each <script>."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._in: dict | None = None
        self._buf: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "script":
            self._in, self._buf = a, []

    def handle_data(self, data):
        if self._in is not None:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in is not None:
            self.scripts.append((self._in, "".join(self._buf)))
            self._in = None


@pytest.fixture(scope="module")
def toy():
    return lab_data("toy_spam")


def config_of(shell: str) -> dict:
    (cfg,) = [text for a, text in Tags(shell).scripts if a.get("id") == "nblab-config"]
    return json.loads(cfg)


# ---- the assets ------------------------------------------------------------------------------------------------

def test_asset_names_are_the_sha256_of_their_bytes():
    got = site.assets()
    assert len(got) == 3
    for name, (body, ctype) in got.items():
        m = re.fullmatch(r"(lab|plotly)\.([0-9a-f]{12})\.(js|css)", name)
        assert m, name
        assert m.group(2) == hashlib.sha256(body).hexdigest()[:12]
        assert ctype == {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}[m.group(3)]
    names = site.asset_names()
    assert set(names) == {"js", "plotly", "css"}
    assert set(names.values()) == set(got)
    assert names["js"].startswith("lab.") and names["js"].endswith(".js")
    assert names["plotly"].startswith("plotly.") and names["css"].endswith(".css")


def test_assets_are_the_lab_bundle_the_plotly_build_and_the_style_sheets():
    got = site.assets()
    names = site.asset_names()
    js = got[names["js"]][0].decode("utf-8")
    assert js == bundle.bundle("boot.js")
    assert page.script_text(js) in page.lab_html(lab_data("toy_spam"))      # what the one-file page inlines
    assert "NBLab" in js
    plotly = got[names["plotly"]][0]
    assert plotly == gzip.decompress(page.PLOTLY_GZ.read_bytes())
    assert plotly.startswith(b"/* plotly.js") and b"var Plotly=" in plotly[:2000]
    css = got[names["css"]][0].decode("utf-8")
    assert page.CSS.read_text(encoding="utf-8") in css and page.PANELS_CSS.read_text(encoding="utf-8") in css
    assert css == page.lab_css()


def test_assets_are_built_once_and_named_alike_in_another_process():
    a, b = site.assets(), site.assets()
    for name in a:
        assert a[name][0] is b[name][0]
    out = subprocess.run([sys.executable, "-c", "import json, nblab.site as s; print(json.dumps(s.asset_names()))"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    assert json.loads(out) == site.asset_names()


# ---- the shell ---------------------------------------------------------------------------------------------------

def test_the_shell_holds_no_data_and_no_script_that_runs(toy):
    shell = site.shell_html(toy, data_url="data/toy_spam.json")
    t = Tags(shell)
    names = site.asset_names()
    scripts = [(a, text) for a, text in t.scripts]
    # one JSON block (never executed), two scripts by URL, nothing else
    assert [(a.get("type"), a.get("id")) for a, _ in scripts if "src" not in a] == [("application/json", "nblab-config")]
    assert [a["src"] for a, _ in scripts if "src" in a] == [f"assets/{names['plotly']}", f"assets/{names['js']}"]
    assert all(text.strip() == "" for a, text in scripts if "src" in a)
    assert not any(tag == "style" for tag, _ in t.tags)
    assert not any(k.startswith("on") for _, a in t.tags for k in a)          # no inline event handlers
    assert 'id="nblab-data"' not in shell and "nblab-plotly" not in shell
    assert toy["featureNames"][0] not in shell                                # no data: only the name and models
    assert len(shell) < 20_000
    links = [a for tag, a in t.tags if tag == "link" and a.get("rel") == "stylesheet"]
    assert [a["href"] for a in links] == [f"assets/{names['css']}"]
    assert any(tag == "div" and a.get("id") == "nblab" and a.get("class") == "lab-root" for tag, a in t.tags)
    assert not any(tag == "base" for tag, _ in t.tags)
    cfg = config_of(shell)
    assert cfg["dataUrl"] == "data/toy_spam.json" and "follow" not in cfg
    assert cfg == {**page.page_config(toy), "dataUrl": "data/toy_spam.json"}


def test_the_shell_csp_allows_the_sites_own_origin_only(toy):
    t = Tags(site.shell_html(toy, data_url="data/toy_spam.json"))
    (csp,) = [a["content"] for tag, a in t.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    rules = {r.split()[0]: r.split()[1:] for r in csp.split(";") if r.strip()}
    assert rules["default-src"] == ["'none'"]
    assert rules["script-src"] == ["'self'"]                      # no inline script, no eval, no blob:
    assert rules["connect-src"] == ["'self'"]
    assert set(rules["style-src"]) == {"'self'", "'unsafe-inline'"}   # plotly.js sets element styles
    for r in rules.values():
        assert not any(v.startswith("http") or v == "*" for v in r)


def test_the_shell_for_a_class_link_follows_and_takes_an_asset_prefix(toy):
    shell = site.shell_html({"name": toy["name"], "models": toy["models"]}, data_url="data/toy_spam.json",
                            follow={"state": "abc/state.json", "intervalMs": 2000}, asset_prefix="/class/assets/",
                            settings={"hidden": 50, "lam": 0.1}, title="Week 3")
    cfg = config_of(shell)
    assert cfg["follow"] == {"state": "abc/state.json", "intervalMs": 2000}
    assert cfg["defaults"]["hidden"] == 50 and cfg["defaults"]["lam"] == 0.1
    assert cfg["title"] == "Week 3" and "<title>Week 3</title>" in shell
    assert f'src="/class/assets/{site.asset_names()["js"]}"' in shell


def test_hostile_names_and_titles_stay_text():
    evil = '</script><script>alert(1)</script><img src=x onerror=alert(2)>'
    shell = site.shell_html({"name": evil, "models": ["bernoulli"]}, title=evil + " & co", data_url="data/x.json")
    t = Tags(shell)
    assert [tag for tag, _ in t.tags if tag in ("img", "script")] == ["script", "script", "script"]
    assert not any(k.startswith("on") for _, a in t.tags for k in a)
    cfg = config_of(shell)
    assert cfg["title"] == evil + " & co" and cfg["datasets"] == [evil]
    assert "<title>&lt;/script&gt;" in shell


@pytest.mark.parametrize("settings, key", [({"lam": 0.5}, "lam"), ({"hidden": 101}, "hidden"),
                                           ({"model": "gaussian"}, "model"), ({"init": "magic"}, "init"),
                                           ({"max_iter": 0}, "max_iter"), ({"tol": 0.5}, "tol"),
                                           ({"dataset": "sms_spam"}, "dataset"), ({"colour": 1}, "colour")])
def test_bad_settings_are_refused_naming_the_key(toy, tmp_path, settings, key):
    with pytest.raises(ValueError, match=key):
        site.shell_html(toy, data_url="data/toy_spam.json", settings=settings)
    with pytest.raises(ValueError, match=key):
        site.publish(tmp_path / "out", toy, **settings)
    assert not (tmp_path / "out").exists()                       # nothing written


def test_the_shell_needs_a_data_url(toy):
    with pytest.raises(ValueError, match="data_url"):
        site.shell_html(toy, data_url="")


# ---- publish --------------------------------------------------------------------------------------------------------

def listing(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_publish_writes_the_shell_the_assets_and_the_data(tmp_path, toy):
    out = site.publish(tmp_path / "site", "toy_spam", hidden=50, title="Toy")
    names = site.asset_names()
    assert listing(out) == {"index.html", "data/toy_spam.json", site.MARKER, *(f"assets/{n}" for n in names.values())}
    for n, (body, _) in site.assets().items():
        assert (out / "assets" / n).read_bytes() == body
    assert json.loads((out / "data/toy_spam.json").read_text(encoding="utf-8")) == json.loads(json.dumps(toy))
    shell = (out / "index.html").read_text(encoding="utf-8")
    assert shell == site.shell_html(toy, settings={"hidden": 50}, title="Toy", data_url="data/toy_spam.json")
    assert site.site_files(out) == {rel: (out / rel).stat().st_size for rel in listing(out) - {site.MARKER}}


def test_publish_sanitises_the_data_file_name(tmp_path, toy):
    out = site.publish(tmp_path / "site", {**toy, "name": "../../my data/é"})
    (data_file,) = [f for f in listing(out) if f.startswith("data/")]
    assert re.fullmatch(r"data/[A-Za-z0-9][A-Za-z0-9_-]*\.json", data_file), data_file   # no leading _ (Jekyll)
    assert config_of((out / "index.html").read_text(encoding="utf-8"))["dataUrl"] == data_file
    assert not (tmp_path / "my data").exists()


def test_publish_refuses_a_foreign_folder_and_a_file(tmp_path):
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("precious")
    with pytest.raises(FileExistsError, match="not empty"):
        site.publish(mine, "toy_spam")
    assert listing(mine) == {"chapter1.tex"}
    f = tmp_path / "a_file"
    f.write_text("x")
    with pytest.raises(NotADirectoryError):
        site.publish(f, "toy_spam")
    empty = tmp_path / "empty"
    empty.mkdir()
    site.publish(empty, "toy_spam")                                # an empty folder is fine
    assert (empty / "index.html").is_file()


def test_publish_replaces_its_own_previous_publish(tmp_path):
    out = site.publish(tmp_path / "site", "toy_spam")
    # as an older version of the lab left it: another hashed asset, listed in the record
    stale = "assets/lab.0123456789ab.js"
    (out / stale).write_text("old")
    rec = json.loads((out / site.MARKER).read_text())
    rec["files"].append(stale)
    rec["files"].append("../outside.txt")                          # a record never reaches out of the folder
    (out / site.MARKER).write_text(json.dumps(rec))
    (tmp_path / "outside.txt").write_text("keep")
    (out / "README.txt").write_text("the teacher's note")          # not written by publish: left alone
    site.publish(out, "play_tennis", hidden=50)
    names = site.asset_names()
    assert listing(out) == {"index.html", "data/play_tennis.json", site.MARKER, "README.txt",
                            *(f"assets/{n}" for n in names.values())}
    assert (tmp_path / "outside.txt").read_text() == "keep"
    assert config_of((out / "index.html").read_text())["dataUrl"] == "data/play_tennis.json"


# ---- the command -----------------------------------------------------------------------------------------------------

def cli(*args):
    return subprocess.run([sys.executable, "-m", "nblab.publish", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_the_command_writes_a_site_and_says_how_to_try_it(tmp_path):
    out = tmp_path / "lab"
    r = cli(out, "--dataset", "toy_spam", "--hidden", "50", "--lam", "0.1", "--seed", "3", "--title", "Week 3")
    assert r.returncode == 0, r.stderr
    assert "index.html" in r.stdout and "data/toy_spam.json" in r.stdout
    assert f"python -m http.server -d {out}" in r.stdout
    cfg = config_of((out / "index.html").read_text(encoding="utf-8"))
    assert cfg["title"] == "Week 3"
    assert {k: cfg["defaults"][k] for k in ("hidden", "lam", "seed")} == {"hidden": 50, "lam": 0.1, "seed": 3}
    r = cli(out, "--dataset", "play_tennis")                        # again into its own folder: replaced
    assert r.returncode == 0, r.stderr
    assert not (out / "data/toy_spam.json").exists()


@pytest.mark.parametrize("args, says", [
    (["--lam", "0.5"], "--lam=0.5"),
    (["--hidden", "101"], "--hidden=101"),
    (["--hidden", "many"], "--hidden"),
    (["--max-iter", "0"], "--max-iter=0"),
    (["--model", "gaussian"], "--model="),
    (["--init", "magic"], "--init="),
    (["--dataset", "nope"], "sms_spam"),
    (["--colour", "red"], "--colour"),
])
def test_the_command_refuses_bad_values_in_one_line(tmp_path, args, says):
    out = tmp_path / "lab"
    r = cli(out, "--dataset", "toy_spam", *args) if args[0] != "--dataset" else cli(out, *args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("python -m nblab.publish: error: ") and says in lines[0]
    assert not out.exists()


def test_the_command_refuses_a_foreign_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    r = cli(tmp_path, "--dataset", "toy_spam")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "not empty" in r.stderr and "Traceback" not in r.stderr
    assert listing(tmp_path) == {"notes.txt"}
