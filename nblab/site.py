"""The lab as a static site: an HTML shell, hashed assets and the data as a file of its own.

The one-file lab (:func:`nblab.page.lab_html`) inlines everything: plotly.js, the bundled JavaScript, the
CSS and the data. A page served over HTTP does better with each of them as a file: the browser caches the
code once for every lesson, and the data comes as JSON. This module makes the pieces (the class link of
the app serves the same pieces, the class-link contract, docs/class_link.md):

* :func:`assets`: the lab's immutable files, named after their bytes (``lab.<sha256[:12]>.js``,
  ``plotly.<sha256[:12]>.js``, ``lab.<sha256[:12]>.css``): a name never changes meaning, so a host can
  serve them with ``Cache-Control: immutable``;
* :func:`shell_html`: the page, with the settings in a ``<script type="application/json">`` block (data,
  never run) and ``cfg.dataUrl`` saying where the lab's script fetches the data; no inline data, no
  inline executable script, and a Content-Security-Policy that lets scripts, styles and requests come
  from the page's own origin only;
* :func:`publish`: a folder any static host serves (``index.html``, ``assets/``, ``data/<name>.json``).

Every URL inside the shell is relative, so the folder works under any path (``https://host/~me/lab/``).

nblab imports nbcore, numpy and the standard library only (tests/lab/test_layers.py).
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import html
import json
import os
import re
from pathlib import Path

from nblab import bundle
from nblab.page import PLOTLY_GZ, _dataset_name, json_for_script, lab_css, page_config

#: a publish's record of what it wrote (so a second publish into the same folder replaces it, and
#: nothing else is ever removed)
MARKER = ".nblab-site.json"
SITE_FORMAT = "nblab-site/1"

#: scripts, styles, fonts and requests from the page's own origin only. Styles: plotly.js sets element
#: styles and adds its own <style> rules ('unsafe-inline' for styles only); images: plotly's modebar icons and
#: a chart saved as PNG are data:/blob: URLs. No script runs inline: the config is JSON, read with JSON.parse.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'")

JS_TYPE = "text/javascript; charset=utf-8"
CSS_TYPE = "text/css; charset=utf-8"
JSON_TYPE = "application/json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

_HASHED = re.compile(r"^(lab|plotly)\.[0-9a-f]{12}\.(js|css)$")


def _hashed_name(stem: str, body: bytes, ext: str) -> str:
    return f"{stem}.{hashlib.sha256(body).hexdigest()[:12]}.{ext}"


@functools.lru_cache(maxsize=1)
def _built() -> tuple[tuple[str, bytes, str, str], ...]:
    js = bundle.bundle("boot.js").encode("utf-8")
    plotly = gzip.decompress(Path(PLOTLY_GZ).read_bytes())
    css = lab_css().encode("utf-8")
    return (("js", _hashed_name("lab", js, "js"), js, JS_TYPE),
            ("plotly", _hashed_name("plotly", plotly, "js"), plotly, JS_TYPE),
            ("css", _hashed_name("lab", css, "css"), css, CSS_TYPE))


def assets() -> dict[str, tuple[bytes, str]]:
    """The lab's immutable files: ``{name: (bytes, content type)}``.

    * ``lab.<h>.js``: the ES modules of ``nblab/js/`` bundled as one classic script (:func:`nblab.bundle.bundle`
      of ``boot.js``, the script the one-file page inlines): it defines ``window.NBLab`` and starts the lab
      on the page's ``#nblab`` element;
    * ``plotly.<h>.js``: our plotly.js build, unpacked (it sets ``window.Plotly``);
    * ``lab.<h>.css``: ``nblab/lab.css`` and ``nblab/panels.css``.

    ``<h>`` is the first 12 hex digits of the file's SHA-256: the same bytes always get the same name.
    Built once per process.
    """
    return {name: (body, ctype) for _, name, body, ctype in _built()}


def asset_names() -> dict[str, str]:
    """``{"js": "lab.<h>.js", "plotly": "plotly.<h>.js", "css": "lab.<h>.css"}``."""
    return {role: name for role, name, _, _ in _built()}


def safe_name(name: str) -> str:
    """A data set's name as a file name: characters outside ``[A-Za-z0-9_-]`` become ``_``, and it starts with a
    letter or digit (GitHub Pages' Jekyll leaves out files whose names start with ``_``)."""
    out = re.sub(r"[^A-Za-z0-9_-]", "_", str(name or "")).lstrip("_-")[:100]
    return out or "data"


def _url_attr(url: str) -> str:
    return html.escape(url, quote=True)


def shell_html(lab_data: dict, *, settings: dict | None = None, title: str | None = None, data_url: str,
               follow: dict | None = None, asset_prefix: str = "assets/", template: dict | None = None) -> str:
    """The lab page without its data: the lab's script fetches ``data_url`` and starts.

    ``lab_data``: the lab's data (:func:`nblab.data.lab_data`) or a dict with its ``name`` and ``models``
    only (that is all the page's config reads). ``settings``, ``title``, ``template``: as
    :func:`nblab.page.lab_html` (ValueError naming a bad setting). ``data_url``: where the data is,
    relative to the page (``"data/sms_spam.json"``). ``follow``: for a class link, ``{"state":
    "<cid>/state.json", "intervalMs": 2000}`` (the page follows the teacher). ``asset_prefix``: where
    :func:`assets` are served, relative to the page (``"assets/"``).
    """
    if not isinstance(data_url, str) or not data_url:
        raise ValueError("data_url: the data's URL, relative to the page (\"data/<name>.json\")")
    cfg = page_config(lab_data, settings, title, template)
    cfg["dataUrl"] = data_url
    if follow is not None:
        cfg["follow"] = dict(follow)
    names = asset_names()
    pre = asset_prefix
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
        "<meta name=\"referrer\" content=\"no-referrer\">\n"
        "<link rel=\"icon\" href=\"data:,\">\n"
        f"<title>{html.escape(cfg['title'])}</title>\n"
        f"<link rel=\"stylesheet\" href=\"{_url_attr(pre + names['css'])}\">\n"
        "</head>\n<body>\n"
        "<noscript>This lab runs EM in your browser: it needs JavaScript.</noscript>\n"
        "<div id=\"nblab\" class=\"lab-root\"></div>\n"
        f"<script type=\"application/json\" id=\"nblab-config\">{json_for_script(cfg)}</script>\n"
        f"<script src=\"{_url_attr(pre + names['plotly'])}\"></script>\n"
        f"<script src=\"{_url_attr(pre + names['js'])}\"></script>\n"
        "</body>\n</html>\n")


def _load(data) -> dict:
    if isinstance(data, str):
        from nblab.data import lab_data
        return lab_data(data)
    if isinstance(data, dict):
        return data
    raise TypeError("data: a shipped data set's name or a lab-data dict (nblab.data.lab_data)")


def _previous(out: Path) -> list[str] | None:
    """The files a previous publish wrote into ``out`` (relative paths), or None if it is not one."""
    marker = out / MARKER
    if not marker.is_file():
        return None
    try:
        rec = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or rec.get("format") != SITE_FORMAT or not isinstance(rec.get("files"), list):
        return None
    return [f for f in rec["files"] if isinstance(f, str)]


def _inside(out: Path, rel: str) -> Path | None:
    p = (out / rel).resolve()
    try:
        p.relative_to(out.resolve())
    except ValueError:
        return None
    return p


def publish(out_dir, data, *, title: str | None = None, template: dict | None = None, **settings) -> Path:
    """Write the lab as a static site into ``out_dir``; returns the folder.

    ``data``: a shipped data set's name or a lab-data dict (as :func:`nblab.page.write_lab`); ``settings``:
    the page's opening settings (``hidden=95``, ``lam=0.1``, ``model=…``, ``classroom=True``…; ValueError
    naming a bad one, before anything is written). The folder holds ``index.html``, ``assets/`` (the
    hashed files of :func:`assets`) and ``data/<name>.json``; any static web server serves it.

    ``out_dir`` must be missing, empty, or a previous publish (recognised by its ``.nblab-site.json``):
    that one's files are replaced (its old assets removed; files it did not write are left alone). Any
    other non-empty folder is refused (FileExistsError).
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} is a file, not a folder")
    old = None
    if out.is_dir() and any(out.iterdir()):
        old = _previous(out)
        if old is None:
            raise FileExistsError(f"{out} is not empty and holds no previous publish of the lab: "
                                  f"choose a new or empty folder")
    lab = _load(data)
    key = safe_name(_dataset_name(lab))
    data_rel = f"data/{key}.json"
    page = shell_html(lab, settings=settings, title=title, data_url=data_rel, template=template)
    body = json_for_script(lab).encode("utf-8")

    files: dict[str, bytes] = {f"assets/{n}": b for n, (b, _) in assets().items()}
    files[data_rel] = body
    files["index.html"] = page.encode("utf-8")

    out.mkdir(parents=True, exist_ok=True)
    for rel in old or ():
        if rel in files or rel == MARKER:
            continue
        p = _inside(out, rel)
        if p is not None and p.is_file():
            p.unlink()
    for d in ("assets", "data"):
        dd = out / d
        if dd.is_dir() and not any(dd.iterdir()):
            dd.rmdir()
    for rel, b in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_bytes(b)
        os.replace(tmp, p)
    (out / MARKER).write_text(json.dumps({"format": SITE_FORMAT, "files": sorted(files)}, indent=1) + "\n",
                              encoding="utf-8")
    return out


def site_files(out_dir) -> dict[str, int]:
    """``{relative path: size in bytes}`` of a publish's files (its record)."""
    out = Path(out_dir)
    return {rel: (out / rel).stat().st_size for rel in (_previous(out) or []) if (out / rel).is_file()}


__all__ = ["assets", "asset_names", "shell_html", "publish", "safe_name", "site_files", "CSP", "MARKER"]
