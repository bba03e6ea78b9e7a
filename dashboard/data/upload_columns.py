"""Uploads a teacher can use: show the file's columns, guess the roles, let them be changed.

`read_upload(data)` reads a CSV with nbcore's guesses (`nbcore.inspect_csv`:
long free text = text, few distinct values = label, ID/author/date ignored, a
file without a header row detected) and returns the data set plus what was
guessed. `column_picker()` shows the columns and the guess, and returns a new
`ColumnChoice` when the user applies a different one; `read_upload(data, choice)`
then reads the same bytes with it. Nothing here is cached across sessions.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

import nbcore
from dashboard.ui import derive
from nbcore.data import NOT_USED, inspect_csv
from nblab import limits

K_LABEL, K_TEXT, K_IGNORE, K_HEADER = "up_label", "up_text", "up_ignore", "up_header"
K_APPLY = "up_apply"


@dataclass(frozen=True)
class ColumnChoice:
    """Which columns of an upload are the label, the text, and which are ignored."""
    label: str | None
    text: tuple = ()
    ignore: tuple = ()
    header: bool | None = None

    def describe(self) -> str:
        """In words, for a Markdown place (an expander title), each column's name quoted and escaped, so a
        column called "label" reads as a name, not as a word: the labels are in “label”, the text in “text”."""
        def names(cs):
            quoted = [f"“{derive.md_escape(c, 40)}”" for c in cs]
            return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        label = (f"the labels are in “{derive.md_escape(self.label, 40)}”" if self.label is not None
                 else "no label column")
        what = (f"the text in {names(self.text)}" if self.text else "the features in the other columns")
        return (f"{label}, {what}"
                + (f"; {names(self.ignore)} {'is' if len(self.ignore) == 1 else 'are'} ignored" if self.ignore else ""))


def guessed_choice(info: dict) -> ColumnChoice:
    """nbcore's guess as a choice (a column called "label" is its label whatever its values)."""
    label = info.get("label")
    text = tuple(c for c in (info.get("text") or ()) if c != label)
    return ColumnChoice(label=label, text=text, ignore=tuple(c for c in (info.get("ignored") or ()) if c != label),
                        header=info.get("header"))


def choice_message(info: dict, choice: ColumnChoice) -> str:
    """What was guessed, in one sentence (the picker lets the user change it)."""
    parts = [f"Label column: “{derive.md_escape(choice.label, 40)}”"]
    if choice.text:
        parts.append("text: " + ", ".join(f"“{derive.md_escape(c, 40)}”" for c in choice.text))
    if not info.get("header"):
        parts.append("no header row found (columns numbered)")
    return "; ".join(parts) + ". Change them under “Columns” above the charts."


def guess(data: bytes, choice: ColumnChoice | None = None) -> tuple[dict, ColumnChoice]:
    """The file's columns (nbcore.inspect_csv) and the choice to read it with (the guess if None)."""
    info = inspect_csv(data, max_bytes=limits.UPLOAD_MAX_BYTES)
    if choice is None:
        choice = guessed_choice(info)
    header = info["header"] if choice.header is None else choice.header
    if header != info["header"]:
        info = inspect_csv(data, header=header, max_bytes=limits.UPLOAD_MAX_BYTES)
        if choice.label not in info["columns"]:  # names and numbers swapped: guess again
            choice = guessed_choice(info)
    if choice.label is None:
        raise nbcore.DataError(
            "No column looks like the labels (a column with a few different values, e.g. spam/ham). "
            f"The columns are: {', '.join(info['columns'])}. Fix: add a label column "
            "(blank cells = unlabelled), or pick one under “Columns”.")
    return info, ColumnChoice(choice.label, tuple(choice.text), tuple(choice.ignore), header)


def choice_options(choice: ColumnChoice) -> dict:
    """nbcore.read_csv keyword arguments for a column choice (stored with a shared file too)."""
    opts = {"label_column": choice.label, "header": choice.header}
    if choice.text:
        opts["text_column"] = list(choice.text)
    else:
        # no text column picked: read_csv still reads a single remaining column of words as
        # text; otherwise every column but the label and the ignored ones is a feature
        opts["ignore_columns"] = [c for c in choice.ignore if c != choice.label]
    return opts


def read_upload(data: bytes, choice: ColumnChoice | None = None, name: str = "uploaded data"):
    """(Dataset, inspect dict, ColumnChoice used). Raises nbcore DataError (a ValueError)."""
    info, choice = guess(data, choice)
    ds = nbcore.read_csv(data, max_bytes=limits.UPLOAD_MAX_BYTES,
                         cap=limits.VOCABULARY_CAP, **choice_options(choice))
    return ds, info, choice


def reading_roles(info: dict, choice: ColumnChoice, read: dict | None = None) -> dict[str, tuple[str, str]]:
    """{column: (role, why)}: the role each column plays in the reading ("label", "text",
    "feature" or "ignored") and a reason that fits that role.

    ``read`` is the data set's ``inferred`` dict (what nbcore.read_csv actually did): with it the
    roles are exactly the reading's (read_csv also reads a single remaining column of words as
    text when no text column is named). Without it they follow ``choice`` as read_csv would read
    it with choice_options(). The reasons are nbcore's guess where the guess had the same role,
    else say why the column has the role it has now (picked, or left over)."""
    cols = list(info["columns"])
    if read:
        label = read.get("label_column")
        text = list(read.get("text_columns") or ([read["text_column"]] if read.get("text_column") else []))
        ignored = set(read.get("ignored_columns") or ())
    else:
        label, text = choice.label, [c for c in choice.text if c != choice.label]
        ignored = {c for c in cols if c != label and c not in text} if text else \
            {c for c in choice.ignore if c != label}
    guess_roles, guess_why = info.get("roles") or {}, info.get("reasons") or {}
    out = {}
    for c in cols:
        s = info["stats"][c]
        was = guess_roles.get(c)
        why = guess_why.get(c, "")
        blanks = f", {s['n_blank']:,} blank (unlabelled)" if s["n_blank"] else ""
        if c == label:
            role = "label"
            if was != "label":
                why = f"picked as the label: {s['distinct']:,} different values{blanks}"
        elif c in text:
            role = "text"
            if was != "text":
                how = "picked as text" if c in choice.text else \
                    "the one column besides the label, and it holds words: read as text"
                why = f"{how}: {s['distinct']:,} different values, {s['mean_length']:.0f} characters on average"
        elif c in ignored:
            role = "ignored"
            if was != "ignored" or why == NOT_USED:  # left over, not ignored for its own sake
                why = NOT_USED if text else "picked under “Ignore these columns”"
        else:
            role = "feature"
            why = f"a feature: {s['distinct']:,} different values"
        out[c] = (role, why)
    return out


def columns_frame(info: dict, choice: ColumnChoice, read: dict | None = None) -> pd.DataFrame:
    """One row per column: its role in the reading, why, and an example value (reading_roles)."""
    rows = []
    for c, (role, why) in reading_roles(info, choice, read).items():
        s = info["stats"][c]
        ex = s["examples"][0] if s["examples"] else ""
        rows.append({"column": c, "used as": role, "why": why,
                     "different values": s["distinct"], "example": ex[:80]})
    return pd.DataFrame(rows)


def ignored_caption(info: dict, choice: ColumnChoice, read: dict | None = None) -> str | None:
    """The columns the reading ignores and why, in Markdown (names escaped); None if none.
    "by default" only while the choice is still the guess."""
    ignored = [(c, why) for c, (role, why) in reading_roles(info, choice, read).items() if role == "ignored"]
    if not ignored:
        return None
    g = guessed_choice(info)
    lead = "Ignored by default" if (g.label, g.text, set(g.ignore)) == (choice.label, choice.text, set(choice.ignore)) \
        else "Ignored"
    return f"{lead}: " + "; ".join(f"**{derive.md_escape(c, 40)}** ({derive.md_escape(why, 120)})"
                                   for c, why in ignored) + "."


def column_picker(info: dict, choice: ColumnChoice, container=None, read: dict | None = None) -> ColumnChoice | None:
    """Show the columns and the current choice; return a new choice when applied, else None.
    ``read``: the data set's ``inferred`` dict, so the roles shown are the reading's."""
    where = container if container is not None else st
    cols = list(info["columns"])
    with where.container(border=True):
        st.markdown("**Columns of your file**" + ("" if info["header"] else
                                                 " — no header row found, so columns are numbered"))
        st.dataframe(columns_frame(info, choice, read), hide_index=True, width="stretch")
        caption = ignored_caption(info, choice, read)
        if caption:
            st.caption(caption)
        label = st.selectbox("Label column", cols, index=cols.index(choice.label) if choice.label in cols else 0,
                             key=K_LABEL, help="Classes to learn; blank cells = unlabelled documents.")
        text = st.multiselect("Text column(s)", [c for c in cols if c != label],
                              default=[c for c in choice.text if c != label], key=K_TEXT,
                              help="Free text turned into word features (several are joined). "
                                   "None: the other columns are used as features.")
        ignore = []
        if not text:
            ignore = st.multiselect("Ignore these columns", [c for c in cols if c != label],
                                    default=[c for c in choice.ignore if c != label], key=K_IGNORE,
                                    help="IDs, names and dates identify a row, not what it is.")
        header = st.checkbox("The first row holds column names", value=bool(info["header"]), key=K_HEADER)
        new = ColumnChoice(label, tuple(text), tuple(ignore) if not text else tuple(
            c for c in cols if c not in text and c != label), header)
        changed = (new.label, new.text, new.header) != (choice.label, choice.text, choice.header) or (
            not text and set(new.ignore) != set(choice.ignore))
        if st.button("Use these columns", key=K_APPLY, disabled=not changed, type="primary",
                     icon=":material/check:"):
            return new
    return None
