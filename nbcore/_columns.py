"""Which column of a teacher's CSV is the text, which the label, which to ignore.

:func:`inspect_csv` reads a file the way :func:`nbcore.read_csv` does and
returns its columns with a guess for each (shown in the lab, where the user
can change it); :func:`guess_columns` does the guessing on parsed rows.

The guesses, in order:

* **ignore** a column named like an ID (``id``, ``comment_id``, ``index``,
  ``#``...) or whose values are all different short codes; a column named like
  an author or user (``author``, ``user``, ``name``, ``email``...); a column
  named like a date/time, or whose values look like dates.  They identify a
  row or a person, not its content, so a classifier must not learn from them.
* **text**: a free-text column (most cells have a space or are long, and are
  not codes — one token of ASCII such as an ID or a hash; many distinct values);
  the longest such column is the text.
* **label**: a column named like a label (``label``, ``class``, ``category``,
  ``target``, ``spam``, ``language``...) with 2..50 distinct values, else the
  column with the fewest distinct values (2..50, and far fewer than the rows),
  else a column named like a label whatever its number of values (``label``
  itself first: it is :func:`nbcore.read_csv`'s default), else an ignored
  column with few values.
* every other column is **ignored** when there is a text column (the text is
  read instead), else a **feature**.

``roles`` and ``reasons`` always agree with ``text``, ``label`` and ``ignored``:
the label's reason is why it is the label, never why it would be ignored.
"""
from __future__ import annotations

import re

import numpy as np

from ._csv import DataError, decode, is_missing, is_number, parse, read_bytes

_ID = re.compile(r"^(#|n|no\.?|nr|num(ber)?|idx|index|row|key|uuid|guid|"
                 r"(.*[_\s-])?id|.*id|id[_\s-].*)$", re.I)
_AUTHOR = re.compile(r"^(.*[_\s-])?(author|user(name)?|name|sender|from|email|e-mail|"
                     r"handle|screen_?name|poster|by)([_\s-].*)?$", re.I)
_DATE = re.compile(r"^(.*[_\s-])?(date|time|timestamp|datetime|created(_at)?|posted|"
                   r"published|year|month|day)([_\s-].*)?$", re.I)
_LABEL = re.compile(r"^(label|labels|class|classes|category|categories|target|y|tag|"
                    r"spam|is_spam|sentiment|language|lang|topic|genre|outcome|"
                    r"type|v1)$", re.I)
_DATE_VALUE = re.compile(
    r"^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
    r"([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?\s*$")

#: a code, not words: one token of printable ASCII (letters, digits, "-", "_", "=", "/"...), no space —
#: an ID, a hash, a URL. Free text in a language written without spaces is not ASCII, so it is not one.
_CODE_VALUE = re.compile(r"^[\x21-\x7e]+$")

_SAMPLE = 2000
#: why a column is not read when a text column is (every column but the text and the label)
NOT_USED = "not used: the text column is read instead"


def _stats(cells: list[str]) -> dict:
    vals = [c.strip() for c in cells[:_SAMPLE]]
    nonblank = [v for v in vals if not is_missing(v)]
    n = len(nonblank)
    return {   # a missing-value marker (NaN, NA, null…) counts as blank, as read_csv reads it
        "n_blank": sum(1 for c in cells if is_missing(c)),
        "distinct": len({c.strip() for c in cells if not is_missing(c)}),
        "mean_length": float(np.mean([len(v) for v in nonblank])) if n else 0.0,
        "spaced": (sum(1 for v in nonblank if " " in v) / n) if n else 0.0,
        "mean_words": float(np.mean([len(v.split()) for v in nonblank])) if n else 0.0,
        "numeric": (sum(1 for v in nonblank if is_number(v)) / n) if n else 0.0,
        "dates": (sum(1 for v in nonblank if _DATE_VALUE.match(v)) / n) if n else 0.0,
        "codes": (sum(1 for v in nonblank if _CODE_VALUE.match(v)) / n) if n else 0.0,
        "examples": nonblank[:3],
    }


def guess_columns(columns: list[str], rows: list[list[str]], header: bool = True) -> dict:
    """Guess the role of every column.

    Returns a dict: ``text`` (list of column names, usually one), ``label``
    (a name or None), ``ignored`` (names), ``roles`` {name: "text" | "label" |
    "ignored" | "feature"}, ``reasons`` {name: why, in words}, and ``stats``
    {name: distinct values, mean length, share of numbers / dates / cells with
    a space / codes (one token of ASCII, no space), examples}.  Names are only used when the file has a header row.
    """
    n_rows = len(rows)
    stats = {c: _stats([r[j] if j < len(r) else "" for r in rows]) for j, c in enumerate(columns)}
    ignored = {}
    for c in columns:
        why = _ignore_reason(c, stats[c], n_rows, header)
        if why is not None:
            ignored[c] = why
    candidates = [c for c in columns if c not in ignored]
    texts = sorted((c for c in candidates if _free_text(stats[c], n_rows)),
                   key=lambda c: -stats[c]["mean_length"])
    label, label_why, texts = _choose_label(columns, stats, ignored, candidates, texts, header, n_rows)
    roles, reasons = _roles_and_reasons(columns, stats, ignored, texts[:1], texts[1:], label, label_why)
    return {"text": list(texts[:1]), "label": label,
            "ignored": [c for c in columns if roles[c] == "ignored"],
            "roles": roles, "reasons": reasons, "stats": stats}


def _free_text(s: dict, n_rows: int) -> bool:
    """Whether a column (its :func:`_stats` ``s``) holds free text: mostly words, many values.

    Long values count as text only when they are not codes: a column of 43-character IDs is long
    on average, but an ID (YouTube's COMMENT_ID), not something to read."""
    return (s["numeric"] < 0.5 and s["codes"] < 0.5 and s["distinct"] > max(2, min(20, 0.1 * n_rows))
            and ((s["spaced"] >= 0.5 and s["mean_words"] >= 3) or s["mean_length"] >= 25))


def _ignore_reason(c: str, s: dict, n_rows: int, header: bool) -> str | None:
    """Why column ``c`` (its :func:`_stats` ``s``) identifies a row or a person rather than its
    content (an ID, a date, an author), or None; names count only with a ``header`` row."""
    named = header
    if named and _ID.match(c) and not _free_text(s, n_rows):
        return "its name says it is an ID: it identifies a row, not its content"
    if named and _DATE.match(c) and not _free_text(s, n_rows):
        return "its name says it is a date or time"
    if s["dates"] >= 0.8:
        return "its values are dates or times"
    if named and _AUTHOR.match(c) and not _free_text(s, n_rows):
        return "its name says it names an author or user"
    if (n_rows >= 20 and s["distinct"] == n_rows and s["numeric"] == 1.0
            and all(re.fullmatch(r"[+-]?\d+", e) for e in s["examples"])):
        return "every value is a different whole number: an ID"
    if (n_rows >= 20 and s["distinct"] == n_rows and s["spaced"] == 0
            and s["numeric"] < 0.5 and (s["mean_length"] < 40 or s["codes"] == 1.0)
            and any(ch.isdigit() for e in s["examples"] for ch in e)):
        return "every value is a different code: an ID"
    return None


def _few(s: dict, n_rows: int) -> bool:
    """Few enough distinct values to be classes: 2..50, and at most half the rows."""
    d = s["distinct"]
    return 2 <= d <= 50 and d <= max(2, 0.5 * n_rows)


def _blanks(s: dict) -> str:
    n = s["n_blank"]
    return f", {n:,} blank (unlabelled)" if n else ""


def _choose_label(columns: list[str], stats: dict, ignored: dict, candidates: list[str], texts: list[str],
                  header: bool, n_rows: int) -> tuple:
    """The label column, in the module docstring's order of guesses.

    Returns
    -------
    label : str or None
    label_why : str or None, the reason when it is not the usual one (chosen by its name alone)
    texts : the free-text columns, without the label
    """
    label, label_why = None, None
    rest = [c for c in candidates if c not in texts[:1]]
    # named like a label: taken even with a single value (read_csv then says "only one class")
    named = [c for c in rest
             if header and _LABEL.match(c) and (_few(stats[c], n_rows) or stats[c]["distinct"] == 1)]
    if named:
        label = named[0]
    else:
        small = sorted((c for c in rest if _few(stats[c], n_rows)),
                       key=lambda c: (stats[c]["distinct"], columns.index(c)))
        if small:
            label = small[0]
    if label is None and header:
        # a column named like a label whatever its values (read_csv's default label column is
        # "label"): many classes make a poor label, but it is what the file says; an exact
        # "label" first, and taken even if it looked like the free text
        by_name = sorted((c for c in columns if _LABEL.match(c.strip()) and c not in ignored
                          and (stats[c]["distinct"] >= 1 or c.strip().lower() == "label")),
                         key=lambda c: (c.strip().lower() != "label", columns.index(c)))
        if by_name:
            label = by_name[0]
            label_why = (f"its name says it holds the labels: {stats[label]['distinct']:,} different values"
                         f"{_blanks(stats[label])}")
            if stats[label]["distinct"] > 50:
                label_why += f" (many classes for {n_rows:,} rows)"
            texts = [c for c in texts if c != label]
    if label is None:  # only ignored columns or text left: try those with few values
        small = sorted((c for c in columns if c not in texts[:1] and _few(stats[c], n_rows)),
                       key=lambda c: stats[c]["distinct"])
        if small:
            label = small[0]
    return label, label_why, texts


def _roles_and_reasons(columns: list[str], stats: dict, ignored: dict, text: list[str], more_text: list[str],
                       label, label_why) -> tuple:
    """{name: role} and {name: why} of every column: ``ignored`` ({name: why}) first, then the text,
    the label, and every other column ignored when there is a text column, else a feature."""
    roles = {c: "ignored" for c in ignored}
    reasons = dict(ignored)
    for c in text:
        roles[c] = "text"
        reasons[c] = (f"free text: {stats[c]['distinct']:,} different values, "
                      f"{stats[c]['mean_length']:.0f} characters on average")
    for c in more_text:
        if c != label:
            reasons[c] = "also free text (add it to the text if you want it read too)"
    if label is not None:
        roles[label] = "label"
        reasons[label] = label_why or f"{stats[label]['distinct']} different values{_blanks(stats[label])}"
    for c in columns:
        if c not in roles:
            roles[c] = "ignored" if text else "feature"
            if text:
                reasons.setdefault(c, NOT_USED)
            else:
                reasons[c] = "a feature"
    return roles, reasons


def inspect_csv(path_or_file, header=None, max_bytes=None) -> dict:
    """Read a CSV's columns and guess their roles, without building features.

    Returns the :func:`guess_columns` dict plus ``columns`` (names; "column 1",
    "column 2"... for a file without a header row), ``header`` (whether the
    first row was taken as names), ``n_rows``, ``delimiter``, ``encoding`` and
    ``preview`` (the first 5 rows).  Pass the chosen columns on to
    :func:`nbcore.read_csv` (``text_column=guess["text"]``,
    ``label_column=guess["label"]``, the same ``header``).
    """
    raw, _ = read_bytes(path_or_file, max_bytes)
    text, encoding = decode(raw)
    table = parse(text, header, [])
    columns, rows = table["columns"], table["rows"]
    out = guess_columns(columns, rows, table["header"])
    out.update(columns=list(columns), header=table["header"], n_rows=len(rows),
               delimiter=table["delimiter"], encoding=encoding, preview=[list(r) for r in rows[:5]])
    return out


__all__ = ["DataError", "guess_columns", "inspect_csv"]
