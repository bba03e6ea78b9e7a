"""Low-level CSV reading for :func:`nbcore.data.read_csv`.

Turns raw bytes into a header and rows of strings, and says what it guessed
(encoding, delimiter, header).  Every problem is raised as
:class:`DataError` with a message a student can act on.

Cells are only ever treated as plain text: nothing here evaluates, expands
or specially interprets a cell, so spreadsheet "formula" cells such as
``=cmd|' /C calc'!A0`` are just strings.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np

_SNIFF_BYTES = 64 * 1024
_DELIMITERS = ",;\t|"
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


class DataError(ValueError):
    """A data file or argument that nbcore cannot use, with a fix in words."""


DataError.__module__ = "nbcore.data"


def _mb(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def read_bytes(path_or_file, max_bytes: int | None = None) -> tuple[bytes, str]:
    """Return (raw bytes, display name) from a path, bytes or binary file-like.

    ``max_bytes=None`` reads a file of any size; an application that serves many users
    (the dashboard) passes its own cap, and a larger file is refused with a DataError.
    """
    limit = None if max_bytes is None else int(max_bytes)
    too_big = (
        "The file is {size}, which is over the {limit} limit for uploads. "
        "Fix: upload a smaller sample of the rows (for example the first few "
        "thousand), or remove columns you do not need."
    )
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        raw = bytes(path_or_file)
        name = "uploaded data"
    elif isinstance(path_or_file, (str, os.PathLike)):
        path = Path(path_or_file)
        if not path.is_file():
            raise DataError(
                f"No file was found at '{path}'. Fix: check the file name and folder."
            )
        size = path.stat().st_size
        if limit is not None and size > limit:
            raise DataError(too_big.format(size=_mb(size), limit=_mb(limit)))
        raw = path.read_bytes()
        name = path.name
    elif hasattr(path_or_file, "read"):
        if hasattr(path_or_file, "seek"):
            try:
                path_or_file.seek(0)
            except (OSError, ValueError):
                pass
        raw = path_or_file.read() if limit is None else path_or_file.read(limit + 1)
        if isinstance(raw, str):
            raise DataError(
                "The file was opened in text mode. Fix: open it in binary mode "
                "(open(path, 'rb')) or pass the file name instead."
            )
        name = str(getattr(path_or_file, "name", "") or "uploaded data")
        name = os.path.basename(name) or "uploaded data"
    else:
        raise DataError(
            "read_csv needs a file name, the file's bytes, or an open binary file "
            f"(got a {type(path_or_file).__name__}). Fix: pass the path to the CSV file."
        )
    if limit is not None and len(raw) > limit:
        exact = isinstance(path_or_file, (bytes, bytearray, memoryview))
        size = _mb(len(raw)) if exact else f"more than {_mb(limit)}"
        raise DataError(too_big.format(size=size, limit=_mb(limit)))
    return raw, name


#: the Unicode bidi controls (embeddings, overrides and isolates U+202A–202E, U+2066–2069; the marks U+200E,
#: U+200F, U+061C): in a class name or a document they would reorder the text shown after them ("spam" +
#: U+202E turns "accuracy 100.0%" into "%0.001 ycarucca"), so text read from a user's file drops them
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def strip_bidi(text) -> str:
    """``text`` (a str; anything else as str()) without bidi control characters."""
    return BIDI_CONTROLS.sub("", text if isinstance(text, str) else str(text))


def decode(raw: bytes) -> tuple[str, str]:
    """Decode bytes as utf-8 (with or without BOM), else cp1252 / latin-1.

    UTF-16 with a byte-order mark (Excel's "Unicode text") is also accepted.

    Raises DataError for files that look binary (NUL bytes, or more than 1% of
    control characters once decoded). Bidi control characters are dropped (:func:`strip_bidi`).
    """
    if not raw.strip():
        raise DataError(
            "The file is empty. Fix: choose a CSV file that has a header row "
            "and at least one row of data."
        )
    binary_msg = (
        "This looks like a binary file (for example a spreadsheet, image or "
        "zip), not a CSV text file. Fix: open it in your spreadsheet program "
        "and use 'Save as' > 'CSV UTF-8 (comma delimited)'."
    )
    text, encoding = _decode_text(raw, binary_msg)
    sample = text[:_SNIFF_BYTES]
    bad = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\r\n\f\v") or 127 <= ord(c) < 160)
    if bad > max(2, 0.01 * len(sample)):
        raise DataError(binary_msg)
    return strip_bidi(text), encoding


def _utf16_without_bom(raw: bytes) -> tuple[str, str] | None:
    """UTF-16 text saved without a byte-order mark (some exports do): mostly-ASCII text then
    has a NUL byte at every odd (little-endian) or every even (big-endian) position. Returns
    (text, encoding) when one of the two reads as text, else None (a binary file)."""
    head = raw[:_SNIFF_BYTES - _SNIFF_BYTES % 2]
    if len(head) < 4 or len(raw) % 2:
        return None
    for enc, zeros in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
        if zeros.count(0) >= 0.9 * len(zeros):
            try:
                text = raw.decode(enc)
            except UnicodeDecodeError:
                continue
            if "\x00" not in text:
                return text, enc
    return None


def _decode_text(raw: bytes, binary_msg: str) -> tuple[str, str]:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 ("Unicode text" from Excel)
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    if b"\x00" in raw[:_SNIFF_BYTES]:
        text = _utf16_without_bom(raw)
        if text is not None:
            return text
        raise DataError(binary_msg)
    if raw.startswith(b"\xef\xbb\xbf"):
        try:
            return raw.decode("utf-8-sig"), "utf-8-sig"
        except UnicodeDecodeError:
            pass
    else:
        try:
            return raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    # Not UTF-8.  Windows "ANSI" (cp1252) and latin-1 agree on every byte except
    # 0x80-0x9f (curly quotes, euro sign, ... in cp1252; control codes in latin-1).
    if re.search(rb"[\x80-\x9f]", raw):
        try:
            return raw.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1"), "latin-1"


def sniff(text: str) -> str:
    """Guess the delimiter from a prefix; fall back to a comma."""
    prefix = text[:_SNIFF_BYTES]
    if len(text) > _SNIFF_BYTES and "\n" in prefix:
        prefix = prefix[: prefix.rfind("\n")]
    try:
        delim = csv.Sniffer().sniff(prefix, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        delim = ","
    if delim not in _DELIMITERS:
        delim = ","
    return delim


def _guess_header(first: list[str], rest: list[list[str]], wanted: list[str]) -> bool:
    """Is the first row a header?

    Yes if it names a column we were asked for; otherwise yes unless some
    column of it looks like the data below it (a number above numbers).
    """
    cells = [c.strip() for c in first]
    lower = [c.lower() for c in cells]
    if any(w.lower() in lower for w in wanted):
        return True
    if not rest:
        return True
    for j, c in enumerate(cells):
        below = [r[j].strip() for r in rest[:50] if j < len(r) and r[j].strip()]
        if below and is_number(c) and all(is_number(b) for b in below):
            return False
    for j, c in enumerate(cells):
        if not c:
            continue
        below = [r[j].strip() for r in rest[:2000] if j < len(r) and r[j].strip()]
        distinct = set(below)
        # A name is not one of the values below it: "ham" above a column of
        # ham/spam is data (a file without a header row).
        if below and len(distinct) <= 50 and len(distinct) < len(below) / 2 and c in distinct:
            return False
        # Column names are short; a sentence in the first row is data, when
        # the column below holds sentences too.
        if len(c.split()) >= 6 and below and np.mean([" " in b for b in below]) > 0.5:
            return False
    return True


#: Label cells that mean "no label" to a statistician: what R, pandas and spreadsheets write for a
#: missing value (compared case-insensitively, after stripping spaces), besides an empty cell.
MISSING_LABELS = frozenset({"", "na", "n/a", "nan", "-nan", "null", "none", "<na>", "#n/a", "#na", "nil"})


def is_missing(cell: str) -> bool:
    """Whether a label cell means "unlabelled": blank, or a missing-value marker (NaN, NA, null…)."""
    return cell.strip().lower() in MISSING_LABELS


_NUM_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$", re.I)


def is_number(s: str) -> bool:
    return bool(_NUM_RE.match(s.strip()))


def parse(text: str, header: bool | None, wanted: list[str]) -> dict:
    """Split text into header and rows.

    Parameters
    ----------
    text : str, the decoded file
    header : bool or None
        Whether the first row names the columns (None: guessed).
    wanted : list of str
        Column names the caller asks for: they help to guess the delimiter and the header.

    Returns
    -------
    dict
        ``delimiter``, ``header`` (bool), ``columns`` (C names; "column 1"... without a header),
        ``rows`` (N lists of C cells, blank lines left out) and ``lines`` ((N,) their line numbers).
    """
    delim = _choose_delimiter(text, wanted)
    rows, lines = _read_rows(text, delim)
    if header is None:
        header = _guess_header(rows[0], rows[1:], wanted)
    if header:
        columns = [c.strip() for c in rows[0]]
        first_line = lines[0]
        rows, lines = rows[1:], lines[1:]
        _check_header(columns, first_line, bool(rows))
    else:
        columns = [f"column {j + 1}" for j in range(len(rows[0]))]
    width = len(columns)
    for row, line in zip(rows, lines):
        if len(row) != width:
            raise DataError(
                f"Line {line} has {len(row)} values but the "
                f"{'header' if header else 'first row'} has {width} columns. "
                "Fix: make every row have the same number of values (check for "
                f"extra or missing {_DELIM_NAMES[delim]}s, or text with a "
                f"{_DELIM_NAMES[delim]} that is not inside double quotes)."
            )
    return {"delimiter": delim, "header": bool(header), "columns": columns,
            "rows": rows, "lines": lines}


def _choose_delimiter(text: str, wanted: list[str]) -> str:
    """The sniffed delimiter, unless it splits the first line so that no ``wanted`` column name
    appears while another delimiter does: then the column names are trusted."""
    delim = sniff(text)
    if wanted:
        first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")

        def names(d):
            return [c.strip().strip('"').lower() for c in first.split(d)]

        want = [w.lower() for w in wanted]
        if not any(w in names(delim) for w in want):
            for d in _DELIMITERS:
                if any(w in names(d) for w in want):
                    delim = d
                    break
    return delim


def _read_rows(text: str, delim: str) -> tuple[list[list[str]], list[int]]:
    """The non-blank rows of the CSV ``text`` and their line numbers; DataError for text the csv
    module cannot read and for a file with no row at all."""
    # The csv module refuses a field over its process-wide limit (128 KB by default): a long
    # document in one quoted cell is data, not an error. No field can be longer than the text.
    if csv.field_size_limit() < len(text) + 1:
        csv.field_size_limit(len(text) + 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, quotechar='"',
                        doublequote=True, strict=False)
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue  # blank line (or only delimiters)
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise DataError(
            f"The file could not be read as CSV near line {reader.line_num} "
            f"({_plain(exc)}). Fix: check that quotes are balanced and that "
            "the file is saved as CSV text."
        ) from None
    if not rows:
        raise DataError(
            "The file is empty. Fix: choose a CSV file that has a header row "
            "and at least one row of data."
        )
    return rows, lines


def _check_header(columns: list[str], first_line: int, has_rows: bool) -> None:
    """DataError for a header with no data row under it, or a column name that appears twice."""
    if not has_rows:
        raise DataError(
            f"The file has only a header row ({', '.join(columns)}) and no "
            "data rows. Fix: add at least one row of data under the header."
        )
    seen = set()
    for c in columns:
        if c in seen:
            raise DataError(
                f"The column name '{c}' appears twice in the header (line "
                f"{first_line}). Fix: give every column a different name."
            )
        seen.add(c)


def _plain(exc: Exception) -> str:
    msg = str(exc).strip().rstrip(".")
    return msg[:1].lower() + msg[1:] if msg else "unreadable text"


def column_as_float(cells: list[str], name: str, lines: list[int]) -> np.ndarray:
    """Parse a numeric column; clear errors for words, blanks, NaN and inf."""
    stripped = [c.strip() for c in cells]
    try:
        values = np.array(stripped, dtype=np.float64)
    except ValueError:
        values = None
    if values is None:
        for c, line in zip(stripped, lines):
            if c == "":
                raise DataError(
                    f"Column '{name}' has an empty cell on line {line}. Fix: fill "
                    "in a number there, or delete that row."
                )
            try:
                float(c)
            except ValueError:
                hint = ""
                if re.fullmatch(r"[+-]?\d+,\d+", c):
                    hint = " If it uses a decimal comma, write it with a decimal point (3.5, not 3,5)."
                shown = c if len(c) <= 30 else c[:27] + "..."
                raise DataError(
                    f"Column '{name}' holds numbers, but line {line} has '{shown}', "
                    f"which is not a number. Fix: correct or delete that cell's row.{hint}"
                ) from None
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"Column '{name}' has '{stripped[i]}' on line {lines[i]}: NaN and "
            "infinity are not usable numbers. Fix: replace it with a real "
            "number, or delete that row."
        )
    return values


__all__ = ["DataError", "read_bytes", "decode", "parse",
           "column_as_float", "is_number"]
