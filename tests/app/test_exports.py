"""Every table a user can download leaves through one path that neutralises spreadsheet formulas;
Streamlit's own table export (which writes cells as they are) is turned off."""
import csv
import io
from pathlib import Path

import pandas as pd
import tomllib
from streamlit.testing.v1 import AppTest

from dashboard.ui import derive

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["=HYPERLINK(\"http://evil.example\",\"x\")", "=cmd|' /C calc'!A0", "+44 20 7946 0000",
           "@channel", "-2+3", "\t=1+1"]
# what a spreadsheet treats as a formula: a cell starting with = + - @ (or a tab/CR before one)
ACTIVE = ("=", "+", "-", "@", "\t", "\r")


def _cells(text: str) -> list[str]:
    rows = list(csv.reader(io.StringIO(text)))
    return [c for r in rows for c in r]


def test_csv_export_neutralises_every_text_cell_and_column_name_and_keeps_numbers():
    frame = pd.DataFrame({"=SUM(A1)": HOSTILE, "n": [-1.5, 2, 3, 4, 5, 6]})
    out = derive.csv_export(frame)
    cells = _cells(out)
    assert not [c for c in cells if c.startswith(ACTIVE) and c != "-1.5"], cells
    assert "'=HYPERLINK(\"http://evil.example\",\"x\")" in cells and "'@channel" in cells
    assert "'=SUM(A1)" in cells and "-1.5" in cells              # numbers are numbers


def test_streamlit_table_export_is_off():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["client"]["disableDataExport"] is True


def test_documents_download_of_an_upload_with_formula_texts_and_labels_is_neutralised():
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["text", "label"])
    w.writerows([f"{HOSTILE[k % len(HOSTILE)]} free prize now", ["=1+1", "@A1"][k % 2]] for k in range(40))
    data = buf.getvalue().encode()
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.run()
    at.session_state["pending_upload"] = ("formulas.csv", data)
    at.run()
    at.slider(key="hidden").set_value(50).run()
    at.button(key="step").click().run()
    assert not at.exception and not at.error
    run, prep = at.session_state["lesson"].run, at.session_state["lesson"].prep
    # the documents button's content, made by the same call the button makes
    from dashboard.lesson import metrics  # noqa: F401
    from dashboard.lesson.panels import documents  # noqa: F401
    rows_hidden = [int(i) for i in prep.score_mask.nonzero()[0]]
    import numpy as np
    frame = documents.documents_frame(np.asarray(run.predict_proba(t=1)), np.asarray(run.predict_proba(t=0)),
                                      prep.y_eval, np.asarray(rows_hidden),
                                      documents.document_texts(prep.ds, prep.X.shape[0]), list(prep.class_names))
    cells = _cells(derive.csv_export(frame))
    texts = [c for c in cells if "free prize" in c]
    assert len(texts) == len(rows_hidden) and all(c.startswith("'") for c in texts), texts[:3]
    assert not [c for c in cells if c.startswith(("=", "+", "@"))], [c for c in cells if c[:1] in "=+@"][:5]
    labels = app_button_labels(at)
    assert any(label.startswith(f"All {len(rows_hidden):,} hidden documents at t = 1") for label in labels), labels


def app_button_labels(at) -> list[str]:
    return [e.proto.label for e in at.get("download_button")]
