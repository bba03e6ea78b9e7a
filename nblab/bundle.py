"""The ES modules of ``nblab/js/`` as one inline classic script.

A page opened from file:// cannot import files (every browser refuses module scripts from file: URLs),
and the lab page must work offline as one file. Node's test runner imports the modules directly; this
turns the same files into one script for the page:

* each module becomes a function of its own (its own scope, strict mode, as a module is) registered in
  a small module table under its path relative to ``nblab/js/`` ("em.js", "panels/maths.js");
* ``import {a, b as c} from "./x.js"`` becomes ``const {a, b: c} = __nblab_require("x.js")``,
  ``import * as ns from "./x.js"`` a ``const ns = …`` and ``import "./x.js"`` a bare require;
* ``export function|async function|function*|class|const|let|var NAME`` and ``export {a, b as c}``
  (also ``export {a} from "./x.js"``) become getters on the module's exports object, defined before the
  module's body runs (function declarations are hoisted; a ``const`` is read only once it is set);
* the modules are written in topological order (a module after everything it imports) and the entry
  module is required last; an import cycle is an error (the modules do not need one);
* anything else (a default import, ``export *``, ``export default`` of an unnamed value, destructuring
  exports, ``import.meta``, a dynamic ``import()``, a bare package name) is an error naming the file
  and line: the modules are written in the subset above.

The modules are found by path: every ``.js`` file under ``nblab/js/`` (the panels too). The page's entry
(``boot.js``) finds the panels through a module written here, ``panels/registry.js``: ``PANELS``, the
panel modules present (``[name, module]`` in the lesson's order; a panel not written yet is simply not
there). The table is reachable from the page as ``window.NBLab.require(path)`` (tests and the benchmark
drive the engine through it).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

JS_DIR = Path(__file__).resolve().parent / "js"
#: the generated module listing the lower panels present
REGISTRY = "panels/registry.js"
#: the lesson's order of the panels below the charts (file stems; others follow in name order)
PANEL_ORDER = ["params", "responsibilities", "stop_rules", "climb", "documents", "maths", "message"]
#: helper modules under panels/ that are not panels themselves
PANEL_HELPERS = {"common", "registry", "util", "utils"}


class BundleError(ValueError):
    """A module uses syntax the bundler does not translate, imports a missing file, or a cycle."""


@dataclass
class Module:
    path: str                     # relative to the js root, "/"-separated
    source: str
    deps: list[str] = field(default_factory=list)
    body: str = ""                # the translated source
    exports: list[str] = field(default_factory=list)  # the names it exports


_SPEC = r"""(?P<q>["'])(?P<spec>[^"']+)(?P=q)"""
_IMPORT_NAMED = re.compile(r"^import\s*\{(?P<names>[^}]*)\}\s*from\s*" + _SPEC + r"\s*;?", re.S)
_IMPORT_NS = re.compile(r"^import\s*\*\s*as\s+(?P<ns>[A-Za-z_$][\w$]*)\s+from\s*" + _SPEC + r"\s*;?", re.S)
_IMPORT_BARE = re.compile(r"^import\s*" + _SPEC + r"\s*;?", re.S)
_EXPORT_LIST = re.compile(r"^export\s*\{(?P<names>[^}]*)\}\s*(?:from\s*" + _SPEC + r")?\s*;?", re.S)
_EXPORT_DECL = re.compile(r"^export\s+(?P<kw>async\s+function\s*\*?|function\s*\*?|class|const|let|var)\s+"
                          r"(?P<name>[A-Za-z_$][\w$]*)")
_EXPORT_DEFAULT = re.compile(r"^export\s+default\s+(?P<kw>async\s+function\s*\*?|function\s*\*?|class)\s+"
                             r"(?P<name>[A-Za-z_$][\w$]*)")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")


def _err(path: str, line: int, what: str) -> BundleError:
    return BundleError(f"nblab/js/{path}:{line}: {what}")


def _line_of(src: str, pos: int) -> int:
    return src.count("\n", 0, pos) + 1


def _resolve(path: str, spec: str, line: int) -> str:
    if not (spec.startswith("./") or spec.startswith("../")):
        raise _err(path, line, f"import of {spec!r}: only relative paths to files under nblab/js/ "
                               f"(\"./x.js\") are bundled, never a package")
    if not spec.endswith(".js"):
        raise _err(path, line, f"import of {spec!r}: write the file's name in full (\"./x.js\")")
    parts = path.split("/")[:-1]
    for p in spec.split("/"):
        if p == ".":
            continue
        if p == "..":
            if not parts:
                raise _err(path, line, f"import of {spec!r} leaves nblab/js/")
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def _names(path: str, line: int, text: str) -> list[tuple[str, str]]:
    """(imported or local name, bound or exported name) of "a, b as c"."""
    out = []
    for part in text.split(","):
        part = " ".join(part.split())
        if not part:
            continue
        bits = part.split(" as ")
        if len(bits) == 1:
            a = b = bits[0]
        elif len(bits) == 2:
            a, b = bits
        else:
            raise _err(path, line, f"cannot read {part!r} in an import or export list")
        if not (_IDENT.match(a) and _IDENT.match(b)):
            raise _err(path, line, f"cannot read {part!r} in an import or export list")
        out.append((a, b))
    return out


def _statement_starts(src: str):
    """Offsets of the lines that start (column 0) with ``import`` or ``export``, outside block comments
    and template literals spanning lines (the modules keep module-level statements at column 0)."""
    i, n = 0, len(src)
    in_block = False
    in_template = False
    for m in re.finditer(r"^.*$", src, flags=re.M):
        line = m.group(0)
        start = m.start()
        if in_block:
            if "*/" in line:
                in_block = False
            continue
        if in_template:
            if line.count("`") % 2 == 1:
                in_template = False
            continue
        stripped = line.lstrip()
        if stripped.startswith("/*") and "*/" not in stripped:
            in_block = True
            continue
        if stripped.startswith("//") or stripped.startswith("*"):
            continue
        if re.match(r"(import|export)\b", line):
            yield start
        code_part = line.split("//")[0]
        if code_part.count("`") % 2 == 1:
            in_template = True
    del i, n


def translate(path: str, src: str) -> Module:
    """One module's source → a Module with its dependencies and the translated body."""
    mod = Module(path, src)
    exports: list[tuple[str, str]] = []          # (exported name, local expression)
    pieces: list[str] = []
    pos = 0
    for start in _statement_starts(src):
        if start < pos:
            continue
        pieces.append(src[pos:start])
        rest = src[start:]
        line = _line_of(src, start)
        m = _IMPORT_NAMED.match(rest)
        if m:
            dep = _resolve(path, m.group("spec"), line)
            mod.deps.append(dep)
            names = _names(path, line, m.group("names"))
            binds = ", ".join(a if a == b else f"{a}: {b}" for a, b in names)
            wanted = json.dumps([a for a, _ in names])
            pieces.append(f"const {{ {binds} }} = __nblab_import({json.dumps(dep)}, {wanted}, {json.dumps(path)});"
                          + "\n" * m.group(0).count("\n"))
            pos = start + m.end()
            continue
        m = _IMPORT_NS.match(rest)
        if m:
            dep = _resolve(path, m.group("spec"), line)
            mod.deps.append(dep)
            pieces.append(f"const {m.group('ns')} = __nblab_require({json.dumps(dep)});" + "\n" * m.group(0).count("\n"))
            pos = start + m.end()
            continue
        m = _IMPORT_BARE.match(rest)
        if m:
            dep = _resolve(path, m.group("spec"), line)
            mod.deps.append(dep)
            pieces.append(f"__nblab_require({json.dumps(dep)});")
            pos = start + m.end()
            continue
        m = _EXPORT_LIST.match(rest)
        if m:
            names = _names(path, line, m.group("names"))
            if m.group("spec"):
                dep = _resolve(path, m.group("spec"), line)
                mod.deps.append(dep)
                tmp = f"__nblab_re{len(exports)}"
                pieces.append(f"const {tmp} = __nblab_require({json.dumps(dep)});" + "\n" * m.group(0).count("\n"))
                exports += [(b, f"{tmp}[{json.dumps(a)}]") for a, b in names]
            else:
                pieces.append("\n" * m.group(0).count("\n"))
                exports += [(b, a) for a, b in names]
            pos = start + m.end()
            continue
        m = _EXPORT_DECL.match(rest)
        if m:
            exports.append((m.group("name"), m.group("name")))
            if m.group("kw") in ("const", "let", "var"):
                # "export const a = 1, b = 2": the other names of the declaration are not exported here
                head = rest[m.end():].split("\n", 1)[0]
                if re.match(r"\s*=\s*[^;]*,\s*[A-Za-z_$][\w$]*\s*=", head) and "(" not in head.split(",")[0]:
                    raise _err(path, line, "export of several names in one declaration: write one export per name")
            pieces.append(rest[len("export"):m.end()].lstrip())
            pos = start + m.end()
            continue
        m = _EXPORT_DEFAULT.match(rest)
        if m:
            exports.append(("default", m.group("name")))
            pieces.append(rest[len("export default"):m.end()].lstrip())
            pos = start + m.end()
            continue
        first = rest.split("\n", 1)[0].strip()
        if re.match(r"export\s+(const|let|var)\s*[{\[]", first):
            raise _err(path, line, f"a destructuring export is not bundled: {first[:60]!r}")
        if first.startswith("export default"):
            raise _err(path, line, "export default of an unnamed value is not bundled: name it "
                                   "(export function f …, or export { f })")
        if first.startswith("export *"):
            raise _err(path, line, "export * is not bundled: list the names (export { a, b } from \"./x.js\")")
        raise _err(path, line, f"unsupported import/export syntax: {first[:60]!r}")
    pieces.append(src[pos:])
    body = "".join(pieces)
    for m in re.finditer(r"\bimport\s*\(|\bimport\.meta\b", body):
        ln = _line_of(body, m.start())
        text = body.splitlines()[ln - 1].lstrip()
        if text.startswith("//") or text.startswith("*"):
            continue
        raise _err(path, ln, "dynamic import() and import.meta are not bundled")
    getters = "".join(f"  Object.defineProperty(__nblab_exports, {json.dumps(name)}, "
                      f"{{ enumerable: true, get: () => {expr} }});\n" for name, expr in exports)
    seen = set()
    for name, _ in exports:
        if name in seen:
            raise _err(path, 1, f"{name!r} is exported twice")
        seen.add(name)
    mod.body = f'"use strict";\n{getters}{body}'
    mod.exports = [name for name, _ in exports]
    return mod


def _registry_source(paths: list[str]) -> str:
    """panels/registry.js: the panel modules present, in the lesson's order."""
    panels = [p for p in paths if p.startswith("panels/") and p.count("/") == 1
              and p[len("panels/"):-3] not in PANEL_HELPERS]

    def rank(p: str):
        stem = p[len("panels/"):-3]
        return (PANEL_ORDER.index(stem) if stem in PANEL_ORDER else len(PANEL_ORDER), stem)

    panels.sort(key=rank)
    lines = ["// written by nblab/bundle.py: the lower panels present in nblab/js/panels/, in the lesson's order"]
    for i, p in enumerate(panels):
        lines.append(f"import * as p{i} from {json.dumps('./' + p.split('/', 1)[1])};")
    items = ", ".join(f"[{json.dumps(p[len('panels/'):-3])}, p{i}]" for i, p in enumerate(panels))
    lines.append(f"export const PANELS = [{items}].filter(([, m]) => typeof m.mount === \"function\");")
    return "\n".join(lines) + "\n"


def sources(root: Path = JS_DIR) -> dict[str, str]:
    """Every module's source by its path under ``root``, with the generated panel registry."""
    out = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
           for p in sorted(root.rglob("*.js")) if "node_modules" not in p.parts}
    if REGISTRY not in out:
        out[REGISTRY] = _registry_source(sorted(out))
    return out


def order(modules: dict[str, Module], entries: list[str]) -> list[str]:
    """The modules reachable from ``entries``, each after the modules it imports (cycles refused)."""
    done: list[str] = []
    state: dict[str, int] = {}

    def visit(p: str, chain: list[str]) -> None:
        if state.get(p) == 2:
            return
        if state.get(p) == 1:
            cyc = chain[chain.index(p):] + [p]
            raise BundleError("import cycle: " + " → ".join(cyc))
        if p not in modules:
            raise BundleError(f"nblab/js/{chain[-1] if chain else '?'} imports {p!r}, which is not there")
        state[p] = 1
        for d in modules[p].deps:
            visit(d, chain + [p])
        state[p] = 2
        done.append(p)

    for e in entries:
        visit(e, [])
    return done


def bundle(entry: str | list[str] = "boot.js", root: Path = JS_DIR, files: dict[str, str] | None = None,
           run_entry: bool = True, as_module: bool = False) -> str:
    """The classic script: the module table, every module reachable from ``entry`` in topological order,
    then ``entry`` required (unless ``run_entry`` is False). ``files`` overrides the sources read from
    ``root`` (tests).

    ``as_module``: an ES module instead, whose exports are the (single) entry's, read once its modules have
    run (for a host that loads one module text, such as a Streamlit component); it sets no global."""
    srcs = sources(root) if files is None else dict(files)
    if files is not None and REGISTRY not in srcs:
        srcs[REGISTRY] = _registry_source(sorted(srcs))
    entries = [entry] if isinstance(entry, str) else list(entry)
    mods: dict[str, Module] = {}
    todo = list(entries)
    while todo:
        p = todo.pop()
        if p in mods:
            continue
        if p not in srcs:
            raise BundleError(f"no module nblab/js/{p}")
        mods[p] = translate(p, srcs[p])
        todo += [d for d in mods[p].deps if d not in mods and d in srcs]
        for d in mods[p].deps:
            if d not in srcs:
                raise BundleError(f"nblab/js/{p} imports {d!r}, which is not there")
    if as_module and len(entries) != 1:
        raise BundleError("a module bundle has one entry")
    out = ["const __nblab_entry = (function () {" if as_module else "(function () {", '"use strict";',
           "const __nblab_defs = Object.create(null), __nblab_cache = Object.create(null);",
           "function __nblab_require(id) {",
           "  const got = __nblab_cache[id];",
           "  if (got) return got;",
           "  const def = __nblab_defs[id];",
           "  if (!def) throw new Error('nblab bundle: no module ' + id);",
           "  const exp = __nblab_cache[id] = Object.create(null);",
           "  def(exp);",
           "  return exp;",
           "}",
           "function __nblab_import(id, names, from) {",
           "  const m = __nblab_require(id);",
           "  for (const n of names) if (!(n in m)) throw new SyntaxError('nblab/js/' + from + ' imports ' + n + ' from ' + id + ', which does not export it');",
           "  return m;",
           "}",
           ]
    if not as_module:
        out += ["const __nblab_root = typeof globalThis !== 'undefined' ? globalThis : window;",
                "__nblab_root.NBLab = { require: __nblab_require, modules: " + json.dumps(order(mods, entries)) + " };"]
    for p in order(mods, entries):
        out.append(f"// ---- nblab/js/{p} " + "-" * max(4, 90 - len(p)))
        out.append(f"__nblab_defs[{json.dumps(p)}] = function (__nblab_exports) {{")
        out.append(mods[p].body.rstrip())
        out.append("};")
    if as_module:
        out.append(f"return __nblab_require({json.dumps(entries[0])});")
        out.append("})();")
        for n in mods[entries[0]].exports:
            out.append("export default __nblab_entry.default;" if n == "default"
                       else f"export const {n} = __nblab_entry[{json.dumps(n)}];")
        return "\n".join(out) + "\n"
    if run_entry:
        for e in entries:
            out.append(f"__nblab_require({json.dumps(e)});")
    out.append("})();")
    return "\n".join(out) + "\n"


_OWN_ROOT = Path(__file__).resolve().parents[1]


def module_text(entry: str, root: Path) -> str:
    """The ES module ``entry`` (a path under ``root``, "/"-separated) and every module it imports, read from
    ``root`` and joined into one ES module text with the entry's exports (``bundle(as_module=True)``): for a
    host that loads one module text (a Streamlit component) while the files stay plain ES modules that
    node's test runner and the lab page import (dashboard/lesson/player/, dashboard/pagekit/lean_chart.js)."""
    files: dict[str, str] = {}
    todo = [entry]
    while todo:
        p = todo.pop()
        if p in files:
            continue
        f = root / p
        if not f.is_file() and p.startswith("nblab/"):
            f = _OWN_ROOT / p     # the lesson core's shared modules, from where nblab itself is imported
        if not f.is_file():
            raise BundleError(f"no module {p} under {root}")
        files[p] = f.read_text(encoding="utf-8")
        todo += translate(p, files[p]).deps
    return bundle(entry, files=files, as_module=True)
