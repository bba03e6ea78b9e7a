"""The dashboard's limits are the dashboard's: every read of a user's file passes them to the
engine, which itself reads any size and keeps every term (tests/engine/test_data.py)."""
import io

import pytest

import nbcore
from dashboard.data import upload_columns, uploads
from nblab import limits


def _text_csv(n_words: int) -> bytes:
    rows = [" ".join(f"w{i}x{j}" for j in range(50)) + (",a" if i % 2 else ",b")
            for i in range(n_words // 50)]
    return ("text,label\n" + "\n".join(rows) + "\n").encode()


def test_an_upload_over_the_cap_is_refused_with_the_size_and_the_limit():
    big = b"text,label\n" + b"hello world again,a\nfree prize now,b\n" * (limits.UPLOAD_MAX_BYTES // 36 + 10)
    assert nbcore.read_csv(io.BytesIO(big)).n_samples > 0      # the engine alone reads it
    for read in (uploads.read_upload, upload_columns.read_upload):
        with pytest.raises(nbcore.DataError, match=r"over the 5\.0 MB limit for uploads"):
            read(big)


def test_an_uploaded_text_keeps_at_most_the_vocabulary_cap():
    data = _text_csv(limits.VOCABULARY_CAP + 5_000)
    for ds in (uploads.read_upload(data), upload_columns.read_upload(data)[0]):
        assert ds.X.shape[1] == limits.VOCABULARY_CAP
        assert ds.inferred["truncated"] and ds.pipeline.max_features is None


# ---- the memory budget of one lesson run ---------------------------------------------------

def test_run_nbytes_is_the_matrix_plus_every_iteration_s_parameters_plus_kept_responsibilities():
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((40, 25)) < 0.3).astype(float))
    run = nbcore.EM(model="bernoulli", n_classes=3, init="random", random_state=0).start(X, np.full(40, -1))
    # by hand: CSR = data (8 B) + indices (4 B) per stored value + indptr (N + 1) × 4 B;
    # one snapshot = α (K) + β (V × K) float64; responsibilities (N × K) kept twice + 2 working copies
    x_bytes = X.nnz * 8 + X.nnz * X.indices.itemsize + 41 * X.indptr.itemsize
    snap = (3 + 25 * 3) * 8
    assert limits.run_nbytes(X, run.current, 3, max_iter=10, keep_resp=2) == x_bytes + 11 * snap + 4 * 40 * 3 * 8


def test_too_big_message_names_the_size_the_budget_and_the_fixes():
    import numpy as np

    X = np.zeros((1000, 15_000))
    rng = np.random.default_rng(0)
    run = nbcore.EM(model="gaussian", n_classes=2, init="random", random_state=0).start(
        rng.random((4, 10)), np.full(4, -1))

    class Big:  # iteration 0 of a 500-class run on 15,000 features, without allocating it
        alpha = np.zeros(500)
        params = {"beta": np.lib.stride_tricks.as_strided(np.zeros(1), (15_000, 500), (0, 0))}
    # by hand: 256 MB − X (1000 × 15,000 × 8 B = 114.4 MB) − 4 responsibility matrices (1000 × 500
    # × 8 B each, 15.3 MB) = 126.3 MB = 2 snapshots of 57.2 MB: iteration 0 and 1 more
    assert limits.iterations_that_fit(X, Big, 500, keep_resp=2, budget=256 * limits.MB) == 1
    msg = limits.too_big_message(X, Big, 500, keep_resp=2, budget=256 * limits.MB)
    assert "over the 256 MB" in msg and "500 classes" in msg and "15,000 features" in msg
    assert "57.2 MB of parameters per iteration" in msg           # 500 × 15,000 × 8 B (+ α)
    assert "fewer classes" in msg and "vocabulary size" in msg
    small = X[:, :10]
    assert limits.too_big_message(small, run.current, 2, 2, 256 * limits.MB) is None
    # 10 features × 2 classes: (2 + 2 × 10 × 2) × 8 B = 336 B per snapshot (Gaussian: mean and var)
    fixed = 1000 * 10 * 8 + 4 * 1000 * 2 * 8
    assert limits.iterations_that_fit(small, run.current, 2, 2, 256 * limits.MB) == (256 * limits.MB - fixed) // 336 - 1


def test_run_budget_reads_the_environment():
    assert limits.run_budget_bytes({}) == limits.RUN_BUDGET_BYTES
    assert limits.run_budget_bytes({"NBLAB_RUN_BUDGET_MB": "64"}) == 64 * limits.MB
    for bad in ("", "lots", "-5", "0"):
        assert limits.run_budget_bytes({"NBLAB_RUN_BUDGET_MB": bad}) == limits.RUN_BUDGET_BYTES


def _many_classes_csv(n_rows=6000, n_words=15_000, n_classes=500) -> bytes:
    import numpy as np

    rng = np.random.default_rng(1)
    rows = []
    for i in range(n_rows):
        words = rng.integers(0, n_words, 12)
        words[0] = i % n_words                       # every word of the vocabulary occurs
        rows.append(" ".join(f"w{j}" for j in words) + f",c{i % n_classes}")
    return ("text,label\n" + "\n".join(rows) + "\n").encode()


def test_a_500_class_upload_is_refused_in_the_lesson_with_the_budget_and_no_large_allocation():
    """The file that took a server from 247 MB to 1.23 GB in 5 iterations: refused before any
    real work, with the reason and what to change; the previous run stays."""
    import tracemalloc
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py"),
                           default_timeout=120)
    at.run()
    run_before = at.session_state["lesson"].run
    at.session_state["pending_upload"] = ("many_classes.csv", _many_classes_csv())
    tracemalloc.start()
    at.run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert not at.exception
    # the message quotes the file's name, so it is Markdown-escaped: read it as the page shows it
    err = " ".join(e.value for e in at.error).replace("\\", "")
    assert "over the 256 MB" in err and "500 classes" in err and "Fix:" in err, err
    assert at.session_state["lesson"].run is run_before                 # the previous lesson is kept
    assert peak < 200 * limits.MB, peak / limits.MB              # the 6 GB run was never built


def _budget_cap(prep, budget_mb: float) -> int:
    """By hand: (budget − X − 4 × N × K × 8 B) / one snapshot (α and β: (K + V·K) × 8 B) − 1."""
    X, K = prep.X, prep.n_classes
    x_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    per = (K + X.shape[1] * K) * 8
    return int((budget_mb * limits.MB - x_bytes - 4 * X.shape[0] * K * 8) // per) - 1


def test_a_run_keeps_at_most_the_iterations_its_budget_holds_and_says_so(monkeypatch):
    """With a 2 MB budget the SMS lesson (5,574 × 4,250, 66 kB of parameters per iteration)
    keeps at most the iterations that fit, stops there, and the status line says why."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
    monkeypatch.setenv("NBLAB_RUN_BUDGET_MB", "2")
    at = AppTest.from_file(app, default_timeout=120)
    at.query_params.update({"max_iter": "1000", "tol": "1e-08", "player": "off"})
    at.run()
    assert not at.exception and not at.error
    cap = _budget_cap(at.session_state["lesson"].prep, 2)
    assert at.session_state["lesson"].run.settings.max_iter == cap and 10 <= cap < 1000
    for _ in range(cap + 2):
        b = at.button(key="step")
        if b.disabled:
            break
        b.click().run()
    assert at.session_state["lesson"].run.current.iteration == cap
    from kit.apptest import page_text
    assert f"Stopped at t = {cap}: the most iterations this server keeps" in page_text(at)


def test_the_default_budget_leaves_a_long_udhr_link_running():
    """?dataset=udhr_langid&max_iter=1000&tol=1e-08 (0.6 MB per iteration): 256 MB hold
    hundreds of iterations, far more than EM needs to converge here."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py"),
                           default_timeout=120)
    at.query_params.update({"dataset": "udhr_langid", "max_iter": "1000", "tol": "1e-08"})
    at.run()
    assert not at.exception and not at.error
    run = at.session_state["lesson"].run
    assert run.settings.max_iter == _budget_cap(at.session_state["lesson"].prep, 256) > 300
    run.run_to_convergence()
    assert run.converged
