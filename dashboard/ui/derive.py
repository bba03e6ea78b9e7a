"""Pure helpers (no st.*): snapshots -> the arrays and tables the page shows."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

import nbcore
from nbcore import strip_bidi
from nbcore.models import ParamTable


def param_view(snap, model, feature_names, categories=None) -> ParamTable:
    """One (rows × classes) table of a snapshot's parameters: the event model's ``param_table``."""
    return nbcore.get_model(model).param_table(snap.params, feature_names, categories)


# Every user-supplied string shown on a page (class names, column names, category values, words,
# document texts, file names) goes through one of these three, chosen by where it is shown:
#   md_escape   text Streamlit renders as Markdown: st.markdown / st.caption / st.write bodies,
#               alerts, headings, expander titles, the labels and help of every widget and
#               st.metric (label and value), and the options of st.radio, st.select_slider,
#               st.pills and st.segmented_control;
#   latex_text  a name inside st.latex;
#   plot_text   a name in a Plotly figure (titles, legends, tick labels, hover text).
# Plain-text places need none of them and must not get one (the backslashes would show):
# st.text, st.code, dataframe cells and column names, and the options (format_func results)
# of st.selectbox and st.multiselect, which Streamlit's front end draws as text, not Markdown.

#: Characters with a Markdown (CommonMark + GFM) or Streamlit meaning anywhere in a line:
#: emphasis, code, links and images, HTML and entities, tables, strikethrough, $…$ maths,
#: :colour[…] directives, :emoji: and :material/icon: shortcodes, e-mail autolinks.
_MD_ACTIVE = frozenset("\\`*_[]()!#$~:<>|{}&@")
#: Block markers, active only at the start of a line: list items, headings, quotes, rules.
_MD_LINE_START = re.compile(r"^(\s*)([+\-=>#]|\d+[.)])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def one_line(text, limit: int = 80) -> str:
    """A user-supplied string on one line (control characters and line breaks become a space, so it
    cannot start a new Markdown block or table row; bidi controls are dropped, so it cannot reorder the
    text after it), cut to ``limit`` characters with "…"."""
    s = _CONTROL.sub(" ", strip_bidi(str(text)))
    if limit is not None and len(s) > limit:
        s = s[:max(0, limit - 1)] + "…"
    return s


def md_escape(text, limit: int = 80) -> str:
    """A user-supplied string for a Markdown context, shown literally: on one line, at most ``limit``
    characters, every Markdown-active character backslash-escaped (CommonMark lets any ASCII
    punctuation be escaped, and Streamlit's $…$ maths and :colour[…] directives then do not fire).
    A block marker at the start (``- ``, ``# ``, ``1. ``) is escaped too, and URLs and e-mail addresses
    cannot become links (:func:`no_autolink`)."""
    s = one_line(text, limit)
    out = "".join("\\" + ch if ch in _MD_ACTIVE else ch for ch in s)
    out = _MD_LINE_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], out)
    return no_autolink(out)


#: An invisible character that joins its neighbours (U+2060 WORD JOINER). GFM turns URLs and e-mail
#: addresses in plain text into links *after* Markdown escapes are read (remark-gfm's autolink-literal
#: transform), so a backslash alone does not stop ``http\://host`` from becoming a link. A joiner
#: between the scheme and its ``:``, between ``www`` and its dot, and before an ``@`` breaks the
#: patterns it looks for (``https?://``, ``www.``, ``word@domain``) while the text reads the same.
JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(?<![a-z0-9])(?:https?|ftp|mailto|xmpp)(?=\\?:)|(?<![a-z0-9])www(?=\\?\.)|\\?@")


def no_autolink(markdown: str) -> str:
    """``markdown`` (already escaped) with every place GFM would auto-link broken by :data:`JOINER`:
    ``http://`` / ``https://`` / ``ftp://`` / ``mailto:`` / ``xmpp:``, ``www.`` and ``name@domain``.
    The one rule for every user string that reaches Markdown (``md_escape`` applies it)."""
    return _AUTOLINK.sub(lambda m: JOINER + m.group(0) if m.group(0).endswith("@") else m.group(0) + JOINER,
                         markdown)


#: LaTeX (KaTeX) special characters in text mode and how to write them literally (the text-mode
#: commands for ^ and ~ give the characters themselves, not an accent over nothing).
_TEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
        "%": r"\%", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def latex_escape(text, limit: int = 40) -> str:
    """A user-supplied string as LaTeX text-mode characters (for inside ``\\text{…}``)."""
    return "".join(_TEX.get(ch, ch) for ch in one_line(text, limit))


def latex_text(text, limit: int = 40) -> str:
    """A user-supplied string inside st.latex: ``\\text{…}`` with every special character escaped,
    so a name such as ``$$`` or ``\\frac{a}{b}`` is shown as typed and cannot end the formula."""
    return r"\text{" + latex_escape(text, limit) + "}"


def plot_text(text, limit: int = 80) -> str:
    """A user-supplied string for Plotly text (titles, legends, ticks, hover): Plotly renders a subset
    of HTML (``<b>``, ``<a href>``, ``<br>``, entities), treats ``$…$`` as maths and ``%{…}`` in a hover
    template as a field, so ``&``, ``<``, ``>``, ``$`` and ``%`` become character references (Plotly
    shows them as the characters)."""
    s = one_line(text, limit)
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("$", "&#36;")
            .replace("%", "&#37;"))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(v):
    """Text from an upload must not become a spreadsheet formula in an export (CSV injection):
    prefix an apostrophe to text starting with = + - @ (numbers are left alone)."""
    if isinstance(v, str) and v.lstrip(" ").startswith(_FORMULA_START):
        try:
            float(v)
            return v
        except ValueError:
            return "'" + v
    return v


def csv_export(frame: pd.DataFrame) -> str:
    """The one way a table leaves the app as CSV: every text cell and column name goes through
    :func:`safe_cell`, so a name or document from an upload cannot become a spreadsheet formula
    (``=HYPERLINK(…)``, ``=cmd|…``, ``+44…``, ``@channel``). Streamlit's own "Download as CSV"
    on tables is turned off (``client.disableDataExport``): every download is a button that
    calls this."""
    out = frame.rename(columns=lambda c: safe_cell(str(c)))
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(safe_cell)
    return out.to_csv(index=False)


def history_frame(history, class_names, acc=None) -> pd.DataFrame:
    rows = []
    for s in history:
        r = {"iteration": s.iteration, "lambda": s.smoothing, "log_likelihood": s.log_likelihood,
             "objective": s.objective, "delta": s.delta}
        for k, c in enumerate(class_names):
            r[safe_cell(f"alpha_{c}")] = float(s.alpha[k])
        rows.append(r)
    df = pd.DataFrame(rows)
    if acc is not None:
        df["hidden_accuracy"] = list(acc)[: len(df)] + [np.nan] * max(0, len(df) - len(acc))
    return df


def alpha_frame(snap, class_names) -> pd.DataFrame:
    return pd.DataFrame({"class": [safe_cell(str(c)) for c in class_names],
                         "alpha": np.asarray(snap.alpha, dtype=float)})


def params_frame(view: ParamTable, class_names) -> pd.DataFrame:
    df = pd.DataFrame(view.mat, columns=[safe_cell(f"{view.short}_{c}") for c in class_names])
    df.insert(0, "feature", [safe_cell(str(r)) for r in view.rows])
    return df


def row(X, i: int) -> np.ndarray:
    """Row i of a dense or scipy.sparse matrix as a 1-D float array."""
    r = X[i]
    if hasattr(r, "toarray"):
        r = r.toarray()
    return np.asarray(r, dtype=float).ravel()
