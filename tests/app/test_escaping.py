"""Names from a user's CSV are shown literally on every page: never as Markdown, HTML or LaTeX.

Class names, column names, category values and texts of an uploaded file are full of Markdown,
LaTeX and HTML here. Every page of dashboard/pages.py is opened with that upload (AppTest, no
browser), and every element Streamlit renders as Markdown (markdown and caption bodies, alerts,
headings, metric labels and values, widget labels and help, radio options, expander titles) is
scanned: no active form of a name may survive unescaped. Inside st.latex a name may only appear
inside ``\\text{…}`` with LaTeX's special characters escaped. Plotly text may not carry raw HTML.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from kit import ROOT
from kit.apptest import chart_specs, spec_strings

APP = str(ROOT / "dashboard" / "app.py")

# ---- the helpers, against hand-written outputs ----------------------------------------------


def test_md_escape_hand_written():
    from dashboard.ui.derive import JOINER as J
    from dashboard.ui.derive import md_escape

    assert md_escape("![px](http://host/x.png)") == r"\!\[px\]\(http" + J + r"\://host/x.png\)"
    assert md_escape("**bold**") == r"\*\*bold\*\*"
    assert md_escape(":red[RED]") == r"\:red\[RED\]"
    assert md_escape(r"\frac{a}{b}") == r"\\frac\{a\}\{b\}"
    assert md_escape("$$x$$") == r"\$\$x\$\$"
    assert md_escape("[link](http://e.x)") == r"\[link\]\(http" + J + r"\://e.x\)"
    assert md_escape("<img src=x>") == r"\<img src=x\>"
    assert md_escape("a_b ~~c~~ `d` |e| #f &amp; g@h.io") == r"a\_b \~\~c\~\~ \`d\` \|e\| \#f \&amp; g" + J + r"\@h.io"
    # block markers only where they start the text; a dot or dash inside a name stays as it is
    assert md_escape("- item") == r"\- item"
    assert md_escape("+ item") == r"\+ item"
    assert md_escape("= x") == r"\= x"
    assert md_escape("1. first") == r"1\. first"
    assert md_escape("2) second") == r"2\) second"
    assert md_escape("# title") == r"\# title"
    assert md_escape("> quote") == r"\> quote"
    assert md_escape("non-spam v1.2 notes.csv") == "non-spam v1.2 notes.csv"
    # URLs and e-mail addresses never auto-link: a word joiner (invisible) breaks GFM's patterns
    assert md_escape("see www.example.com") == "see www" + J + ".example.com"
    assert md_escape('=HYPERLINK("https://x.io/a")') == r'\=HYPERLINK\("https' + J + r'\://x.io/a"\)'
    assert md_escape("mailto:a") == "mailto" + J + r"\:a"
    assert md_escape("xhttp://y") == r"xhttp\://y"       # not a scheme GFM links (a letter before it)
    # one line: a line break cannot start a new block or end a table row
    assert md_escape("a\n\n# b\r\tc") == r"a \# b c"
    # long names are cut, with an ellipsis
    assert md_escape("x" * 100, 10) == "x" * 9 + "…"
    assert md_escape("*" * 100, 4) == r"\*\*\*…"
    assert md_escape(3) == "3"


def test_latex_text_hand_written():
    from dashboard.ui.derive import latex_text

    assert latex_text("spam") == r"\text{spam}"
    assert latex_text("$$x$$") == r"\text{\$\$x\$\$}"
    assert latex_text(r"\frac{a}{b}") == r"\text{\textbackslash{}frac\{a\}\{b\}}"
    assert latex_text("a&b#c^d_e%f~g") == r"\text{a\&b\#c\textasciicircum{}d\_e\%f\textasciitilde{}g}"
    assert latex_text("**bold** :red[RED]") == r"\text{**bold** :red[RED]}"  # not Markdown in here
    assert latex_text("a\nb") == r"\text{a b}"
    assert latex_text("y" * 50, 10) == r"\text{" + "y" * 9 + "…}"


def test_plot_text_hand_written():
    from dashboard.ui.derive import plot_text

    assert plot_text("<img src=x>") == "&lt;img src=x&gt;"
    assert plot_text("<b>a</b> & $x$") == "&lt;b&gt;a&lt;/b&gt; &amp; &#36;x&#36;"
    assert plot_text("**bold**") == "**bold**"
    assert plot_text("50% %{x}") == "50&#37; &#37;{x}"
    assert plot_text("z" * 30, 5) == "zzzz…"


# ---- the hostile upload ---------------------------------------------------------------------

HOSTILE = ["![px](http://host/x.png)", "**bold**", ":red[RED]", r"\frac{a}{b}", "$$x$$", "[link](http://e.x)",
           "<img src=x>"]
#: class names: every form above, twice over
CLASSES = ["![c](http://host/c.png) **bold** :red[RED]", r"$$x$$ \frac{a}{b} [link](http://e.x) <img src=x>"]
CLASSES3 = CLASSES + ["www.evil.example :blue[B] ~~s~~ `c` |t| #h & &amp; $y$ pupil@school.example"]
FILE_NAME = "![f](http://host/f.png) **up** $$.csv"


def _csv(header, rows) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header] + rows)
    return buf.getvalue().encode()


def binary_csv() -> bytes:
    """0/1 columns named by HOSTILE, two hostile classes. "**bold**" never occurs in the second
    class, so λ = 0 gives an "impossible" word (the smoothing page and the inspector name it)."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(80):
        k = i % 2
        x = [int(rng.random() < (0.7 if (j % 2) == k else 0.25)) for j in range(len(HOSTILE))]
        x[1] = int(k == 0 and rng.random() < 0.6)
        rows.append(x + [CLASSES[k]])
    return _csv(HOSTILE + ["label"], rows)


def categorical_csv() -> bytes:
    """Category columns named by HOSTILE, hostile values, three hostile classes."""
    values = [["**v**", ":red[v]"], [r"\frac{v}{w}", "$$v$$"], ["[l](http://e.x)", "<img src=v>"],
              ["![v](http://host/v.png)", "plain"]]
    rows = [[values[j][(i // (j + 1) + i % 3) % 2] for j in range(4)] + [CLASSES3[i % 3]] for i in range(60)]
    return _csv(HOSTILE[:4] + ["label"], rows)


def text_csv() -> bytes:
    """A text column of hostile messages, two hostile classes."""
    words = ["win cash", "meeting noon", "free prize", "see you"]
    rows = [[f"{words[i % 4]} {HOSTILE[i % len(HOSTILE)]} {i}\n# heading", CLASSES[i % 2]] for i in range(40)]
    return _csv(["text", "label"], rows)


# ---- scanning a page -----------------------------------------------------------------------

#: Markdown-rendered string fields of an element proto (and of its nested messages)
MD_FIELDS = {"body", "label", "help", "delta", "caption", "captions", "content", "selected_content",
             "placeholder_text"}
#: elements whose "options" Streamlit renders as Markdown (st.selectbox / st.multiselect: plain text)
MD_OPTIONS = {"Radio", "Slider"}
#: elements that carry no Markdown (their strings are data, specs or plain text)
PLAIN = {"PlotlyChart", "Arrow", "DataFrame", "ArrowVegaLiteChart", "Code", "Text", "Json", "ImageList",
         "TextArea", "TextInput"}

#: active forms of the names that must never reach a Markdown body unescaped
ACTIVE = ["![px](", "![c](", "![f](", "![v](", "**bold**", "**up**", ":red[", ":blue[", "[link](", "[l](",
          "<img", r"\frac", "$$", "~~s~~", "`c`", "$y$"]
#: pieces of the names; outside a well-formed \text{…} group none may appear in a formula
MARKERS = ["host/", "bold", "RED", "frac{a}", "frac{v}", "$$x", "$$v", "link", "img", "src", "e.x", "blue", ":red"]

_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
#: GFM links URLs and e-mail addresses in text after reading the escapes (remark-gfm's autolink
#: literals): the names' URLs, as its patterns see them once the escapes are read, must not appear
_AUTOLINKED = re.compile(r"(?i)(?<![a-z0-9])(?:https?://(?:host|e\.x)|www\.evil)|pupil@school")
_CODE_SPAN = re.compile(r"`[^`]*`")
_TEXT_GROUP = re.compile(r"\\text\{(?:[^\\{}$&#^_%~]|\\text(?:backslash|asciicircum|asciitilde)\{\}|\\[{}$&#%_])*\}")


def markdown_strings(at: AppTest) -> tuple[list[str], list[str]]:
    """(Markdown-rendered strings, st.latex bodies) of every element on the page (main + sidebar)."""
    md, tex = [], []

    def walk(msg, kind):
        for field, value in msg.ListFields():
            repeated = getattr(field, "is_repeated", None)  # newer protobuf; older: the label
            if repeated is None:
                repeated = field.label == field.LABEL_REPEATED
            values = list(value) if repeated else [value]
            if field.type == field.TYPE_MESSAGE:
                for v in values:
                    walk(v, kind)
            elif field.type == field.TYPE_STRING and (field.name in MD_FIELDS or
                                                      (field.name == "options" and kind in MD_OPTIONS)):
                md.extend(values)

    stack = [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None:
            kind = type(proto).__name__
            if kind == "Markdown" and proto.element_type == proto.Type.LATEX:
                tex.append(proto.body)
            elif kind == "Markdown" and proto.element_type == proto.Type.CODE:
                pass
            elif kind not in PLAIN:
                walk(proto, kind)
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            stack.extend(children.values())
    return md, tex


def active_forms(at: AppTest, where: str) -> list[tuple]:
    """Every active form of a name the page shows: (where, what, the text it is in)."""
    assert not at.exception, (where, [e.value for e in at.exception])
    md, tex = markdown_strings(at)
    found = []
    for s in md:
        read = _ESCAPED.sub("\x01", s)  # an escaped character is literal text: take it out
        found += [(where, "markdown", form, s[:300]) for form in ACTIVE if form in read]
        as_text = re.sub(r"\\(.)", r"\1", _CODE_SPAN.sub("", s))   # what GFM's autolink pass reads
        found += [(where, "autolink", m.group(0), s[:300]) for m in _AUTOLINKED.finditer(as_text)]
    for body in tex:
        inner = body.removeprefix("$$\n").removesuffix("\n$$")
        if "$$" in inner.replace(r"\$", ""):
            found.append((where, "latex", "$$", body[:300]))
        rest = _TEXT_GROUP.sub("", inner)  # the names' well-formed \text{…} groups taken out
        if re.search(r"(?<!\\)\$", rest):
            found.append((where, "latex", "$", body[:300]))
        found += [(where, "latex", m, body[:300]) for m in MARKERS if m in rest]
    for spec in chart_specs(at):
        shown = spec_strings(spec)
        found += [(where, "chart", form, shown[max(0, shown.index(form) - 60):][:200])
                  for form in ("<img", "<b>a", "&amp;lt;") if form in shown]  # raw HTML, or escaped twice
    return found


def _pages():
    from dashboard import pages
    return [p.path for p in pages.PAGES]


def uploaded(name: str, data: bytes) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["pending_upload"] = (name, data)  # what the uploader's callback stores
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["dataset"] == "upload", [e.value for e in at.error]
    return at


def pick_upload(at: AppTest) -> bool:
    """Select the upload in the page's data-set picker; False when the page does not offer it."""
    for box in at.selectbox:
        if "upload" in box.options or any("(your upload)" in o for o in box.options):
            if box.value != "upload":
                box.set_value("upload").run()
            return True
    return False


def visit_every_page(at: AppTest, label: str) -> dict:
    """Open every page with the upload picked; {path: (upload offered, (markdown strings, formulas))}.
    Fails listing every active form found on any page."""
    seen, found = {}, []
    for path in _pages():
        at.switch_page(path)
        at.run()
        offered = pick_upload(at)
        found += active_forms(at, f"{label} {path}")
        md, tex = markdown_strings(at)
        seen[path] = (offered, (len(md), len(tex)))
        if path == "views/lesson.py":  # one step: the maths panel shows the E- and M-step with the names
            at.button(key="step").click().run()
            found += active_forms(at, f"{label} {path} after a step")
            seen[path] = (offered, tuple(map(len, markdown_strings(at))))
        if path == "views/inspector.py" and offered and at.select_slider(key="insp_lam").value != 0.0:
            at.select_slider(key="insp_lam").set_value(0.0).run()  # λ = 0: the impossible words are named
            found += active_forms(at, f"{label} {path} λ = 0")
    assert not found, "\n".join(map(repr, found))
    return seen


def test_binary_upload_every_page():
    at = uploaded(FILE_NAME, binary_csv())
    seen = visit_every_page(at, "binary")
    for path in ("views/lesson.py", "views/inspector.py", "views/smoothing.py", "views/sampling.py",
                 "views/switching.py", "views/side_by_side.py"):
        assert seen[path][0], f"{path} did not offer the upload"
    assert seen["views/lesson.py"][1][1] > 0  # the maths panel's formulas were read


def test_categorical_upload_every_page():
    at = uploaded("cats.csv", categorical_csv())
    seen = visit_every_page(at, "categorical")
    assert seen["views/inspector.py"][0] and seen["views/inspector.py"][1][1] > 0  # the product formula


def test_text_upload_lesson_and_inspector():
    at = uploaded("texts.csv", text_csv())
    found = active_forms(at, "text lesson")
    at.button(key="step").click().run()
    found += active_forms(at, "text lesson after a step")
    at.switch_page("views/inspector.py")
    at.run()
    assert pick_upload(at)
    at.text_area(key="insp_text").set_value("win cash free prize frac img src").run()
    found += active_forms(at, "text inspector")
    assert not found, "\n".join(map(repr, found))


@pytest.mark.parametrize("name", HOSTILE)
def test_scanner_sees_a_raw_name(name):
    """The scan itself: a raw name in a markdown body or a formula is caught."""
    from dashboard.ui.derive import latex_text, md_escape

    read = _ESCAPED.sub("\x01", f"Class **{name}**")
    assert any(form in read for form in ACTIVE)
    read = _ESCAPED.sub("\x01", f"Class **{md_escape(name)}**")
    assert not any(form in read for form in ACTIVE)
    assert _TEXT_GROUP.sub("", latex_text(name)) == ""
    if any(c in name for c in "\\{}$&#^_%~"):  # LaTeX-active: caught when not escaped
        assert _TEXT_GROUP.sub("", r"\text{" + name + "}") != ""


def test_katex_renders_every_escaped_name_as_typed(tmp_path):
    """Streamlit's own KaTeX (its front-end bundle, run with node) parses each escaped name and shows
    the characters as typed: a name can neither break the formula nor become LaTeX."""
    import glob
    import json
    import shutil
    import subprocess

    import streamlit

    from dashboard.ui.derive import latex_text

    node = shutil.which("node")
    bundle = glob.glob(str(Path(streamlit.__file__).parent / "static" / "static" / "js" / "katex.*.js"))
    if not node or not bundle:
        pytest.skip("needs node and Streamlit's KaTeX bundle")
    (tmp_path / "katex.mjs").write_bytes(Path(bundle[0]).read_bytes())
    names = HOSTILE + ["a&b#c^d_e%f~g", "}\\end{aligned}$$"]
    (tmp_path / "probe.mjs").write_text(
        'import katex from "./katex.mjs";\n'
        "const names = JSON.parse(process.argv[2]);\n"
        "console.log(JSON.stringify(names.map(n => {\n"
        "  try {\n"
        "    const html = katex.renderToString(String.raw`\\begin{aligned}p(` + n + String.raw`) &= 0.5\\end{aligned}`,\n"
        "                                      {displayMode: true, throwOnError: true});\n"
        "    const shown = html.replace(/<annotation[^]*?<\\/annotation>/g, '').replace(/<[^>]+>/g, '');\n"
        "    return shown.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');\n"
        "  } catch (e) { return 'ERROR ' + e.message; }\n"
        "})));\n")
    out = subprocess.run([node, str(tmp_path / "probe.mjs"), json.dumps([latex_text(n) for n in names])],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    for name, shown in zip(names, json.loads(out.strip().splitlines()[-1])):
        assert f"p({name})=0.5" in shown.replace("\u200b", "").replace("\xa0", " "), (name, shown)


def test_url_values_in_a_links_notice_are_not_links():
    """Values of a hostile link are named in the page's notice: URLs among them stay text."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"dataset": "http://host/x", "hidden": "https://host/y", "lam": "www.evil.example",
                       "speed": "mailto:pupil@school.example", "player": "http://host/p",
                       "classroom": "http://e.x/z"}.items():
        at.query_params[key] = value
    at.run()
    notice = " ".join(w.value for w in at.warning)
    assert "player" in notice and "dataset" in notice, notice   # the values were named
    found = active_forms(at, "notice")
    assert not found, "\n".join(map(repr, found))
