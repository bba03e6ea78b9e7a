"""The shipped spam_assassin data set: the file, the loader, the data card's numbers.

The counts are checked against the file read with the standard library alone (gzip + split),
not through nbcore; the accuracy table in datasets/spam_assassin.md is recomputed with nbcore
(``pytest tests/engine/test_spam_assassin.py -k card_table -s`` prints it), and so is the part of the
issue's reference table that does not depend on the hidden split (``-k issue_table -s`` prints the
spread of the rest); load time and one EM step are compared with sms_spam and printed, not asserted
(benchmarks/bench_step_per_document.py times the Step in detail).
"""
from __future__ import annotations

import gzip
import re
import statistics
import time
import warnings

import numpy as np
import pytest

import nbcore
from kit import ROOT
from nbcore.data import DEFAULT_PIPELINES, TEXT_DATASETS

FILE = ROOT / "datasets" / "spam_assassin.tsv.gz"
CARD = ROOT / "datasets" / "spam_assassin.md"

#: What scripts/build_spam_assassin.py printed: messages kept per group of the npm package
#: (raw counts minus exact duplicates after cleaning).
KEPT = {"easy-ham-1": 2472, "easy-ham-2": 1388, "hard-ham-1": 248, "spam-1": 481, "spam-2": 1326}
RAW = {"easy-ham-1": 2500, "easy-ham-2": 1400, "hard-ham-1": 250, "spam-1": 500, "spam-2": 1396}

#: The card's table: (model, hidden %) -> (supervised, EM at convergence), vocabulary the
#: 20,000 most frequent words (min df 1), λ = 1, EM from the labelled rows, seed 0.
CARD_TABLE = {("bernoulli", 90): (0.811, 0.670), ("bernoulli", 99): (0.697, 0.662),
              ("multinomial", 90): (0.967, 0.974), ("multinomial", 99): (0.934, 0.970)}


def read_file() -> list[list[str]]:
    with gzip.open(FILE, "rt", encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    assert lines[-1] == ""  # every row ends with a newline
    return [line.split("\t") for line in lines[:-1]]


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rows():
    return read_file()


@pytest.fixture(scope="module")
def ds():
    return nbcore.load_dataset("spam_assassin")


def test_file_rows_groups_and_labels(rows):
    header, body = rows[0], rows[1:]
    assert header == ["label", "group", "id", "text"]
    assert all(len(r) == 4 for r in body)
    per_group = {}
    for label, group, _, _ in body:
        assert label == ("spam" if group.startswith("spam") else "ham"), group
        per_group[group] = per_group.get(group, 0) + 1
    assert per_group == KEPT
    assert all(KEPT[g] <= RAW[g] for g in RAW) and sum(RAW.values()) - sum(KEPT.values()) == 131
    texts = [r[3] for r in body]
    assert len(set(texts)) == len(texts)  # exact duplicates removed
    assert all(t and t == " ".join(t.split()) for t in texts)  # white space normalised, none empty
    ids = [(r[1], r[2]) for r in body]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"\d{5}", i) for _, i in ids)


def test_cleaning_dropped_headers_and_markup(rows):
    texts = [r[3] for r in rows[1:]]
    # no header lines (Return-Path:, Received:, Delivered-To:) and no HTML tags or entities survive;
    # a subject may itself begin "From " (two ham subjects do)
    assert not any(t.startswith(("Return-Path:", "Received:", "Delivered-To:")) for t in texts)
    assert sum("Return-Path:" in t for t in texts) < 10  # only quoted inside a few bodies
    tags = sum(bool(re.search(r"</?(html|body|table|td|font)\b[^>]*>", t, re.I)) for t in texts)
    assert tags < 20, tags
    assert sum("&nbsp;" in t for t in texts) < 10
    # the first message of the package: its subject starts the text
    assert rows[1][:3] == ["ham", "easy-ham-1", "00001"] and rows[1][3].startswith("Re: New Sequences Window")


def test_load_dataset_matches_the_file(ds, rows):
    body = rows[1:]
    ham = sum(r[0] == "ham" for r in body)
    spam = sum(r[0] == "spam" for r in body)
    assert (ham, spam) == (4108, 1807)
    assert ds.class_names == ["ham", "spam"] and ds.n_classes == 2
    assert ds.X.shape == (len(body), 20_000)
    assert np.bincount(ds.y).tolist() == [ham, spam]
    assert list(ds.texts) == [r[3] for r in body]
    assert ds.pipeline == DEFAULT_PIPELINES["spam_assassin"] and ds.pipeline.min_df == 2
    assert ds.kind == "binary" and "spam_assassin" in TEXT_DATASETS
    assert ds.card and "PDDL" in ds.card and "spam_assassin" in nbcore.list_datasets()
    counts = nbcore.load_dataset("spam_assassin", binary=False)
    assert counts.kind == "counts" and counts.X.shape == ds.X.shape


def test_card_states_the_counts():
    card = CARD.read_text(encoding="utf-8")
    for n in ("5,915", "4,108", "1,807", "6,046", "131"):
        assert n in card, n
    for g, n in KEPT.items():
        assert re.search(rf"`{g}`\s*\|[^\n]*\b{RAW[g]:,}\b[^\n]*\b{n:,}\b", card), g


#: The table of the issue that asked for this data set, measured elsewhere on the same corpus
#: ("subject + body, headers and HTML tags stripped, words, λ = 1, EM from the labelled rows,
#: hidden-label accuracy", 20,000 most frequent words, min df 1), with an unknown hidden split.
ISSUE_TABLE = {("bernoulli", 90): (0.833, 0.672), ("bernoulli", 99): (0.689, 0.656),
               ("multinomial", 90): (0.965, 0.973), ("multinomial", 99): (0.759, 0.940)}
#: Its cells that hardly move with the hidden split (over 25 seeds of hide_labels they stay
#: within ±0.01): (model, hidden %, 0 = supervised / 1 = EM). The other three (Bernoulli
#: supervised at 90 %, both multinomial figures at 99 %) depend on which rows are visible.
SPLIT_STABLE = [("bernoulli", 90, 1), ("bernoulli", 99, 0), ("bernoulli", 99, 1),
                ("multinomial", 90, 0), ("multinomial", 90, 1)]


def card_table() -> dict:
    """The card's accuracy table recomputed: 20,000 most frequent words (min df 1)."""
    out = {}
    base = nbcore.load_dataset("spam_assassin", min_df=1)
    for model in ("bernoulli", "multinomial"):
        d = base if model == "bernoulli" else base.with_pipeline(binary=False)
        for hidden in (90, 99):
            y_obs, mask = nbcore.hide_labels(d.y, hidden / 100, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run = nbcore.EM(model=model, n_classes=2, smoothing=1.0, init="labeled").start(d.X, y_obs)
                sup = float(np.mean(run.predict(t=0)[mask] == d.y[mask]))
                run.run_to_convergence()
            out[model, hidden] = (sup, float(np.mean(run.predict()[mask] == d.y[mask])), run.iteration)
    return out


def test_card_table_reproduces():
    got = card_table()
    card = CARD.read_text(encoding="utf-8")
    print("\n| hidden | model | supervised on visible | EM at convergence |")
    for (model, hidden), (sup, em, it) in got.items():
        print(f"| {hidden} % | {model} | {sup:.3f} | {em:.3f} ({it} iterations) |")
    for key, (sup, em) in CARD_TABLE.items():
        assert abs(got[key][0] - sup) <= 0.02 and abs(got[key][1] - em) <= 0.02, (key, got[key])
        assert f"{sup:.3f}" in card and f"{em:.3f}" in card, key
    # the lesson: under Bernoulli EM loses accuracy, under multinomial it gains
    assert got["bernoulli", 90][1] < got["bernoulli", 90][0]
    assert got["multinomial", 90][1] > got["multinomial", 90][0]


def test_issue_table_split_stable_cells_within_0_02():
    """The issue's figures that do not depend on the hidden split are reproduced (±0.02) by the
    card's settings; the three that do lie inside the spread of seeds 0-9 of hide_labels."""
    got = card_table()
    for model, hidden, i in SPLIT_STABLE:
        assert abs(got[model, hidden][i] - ISSUE_TABLE[model, hidden][i]) <= 0.02, (model, hidden, i, got[model, hidden])
    base = nbcore.load_dataset("spam_assassin", min_df=1)
    counts = base.with_pipeline(binary=False)
    spread = {"b90 supervised": [], "m99 supervised": [], "m99 EM": []}
    for seed in range(10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y_obs, mask = nbcore.hide_labels(base.y, 0.9, random_state=seed)
            run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled").start(base.X, y_obs)
            spread["b90 supervised"].append(float(np.mean(run.predict(t=0)[mask] == base.y[mask])))
            y_obs, mask = nbcore.hide_labels(counts.y, 0.99, random_state=seed)
            run = nbcore.EM(model="multinomial", n_classes=2, smoothing=1.0, init="labeled").start(counts.X, y_obs)
            spread["m99 supervised"].append(float(np.mean(run.predict(t=0)[mask] == counts.y[mask])))
            run.run_to_convergence()
            spread["m99 EM"].append(float(np.mean(run.predict()[mask] == counts.y[mask])))
    issue = {"b90 supervised": ISSUE_TABLE["bernoulli", 90][0], "m99 supervised": ISSUE_TABLE["multinomial", 99][0],
             "m99 EM": ISSUE_TABLE["multinomial", 99][1]}
    for name, values in spread.items():
        print(f"\n{name}: seeds 0-9 {min(values):.3f}-{max(values):.3f} (median {statistics.median(values):.3f}), "
              f"issue {issue[name]:.3f}", end="")
        assert min(values) <= issue[name] <= max(values), (name, values)


def _median_time(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def test_benchmark_load_and_em_step_against_sms_spam():
    """Printed for the record (``-s``): load time and one EM step per document, spam_assassin ÷ sms_spam."""
    load = {name: _median_time(lambda: nbcore.load_dataset(name), 3) for name in ("sms_spam", "spam_assassin")}
    step = {}
    for name in load:
        ds = nbcore.load_dataset(name)
        y_obs, _ = nbcore.hide_labels(ds.y, 0.9, random_state=0)
        run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled", max_iter=10_000,
                        tol=0).start(ds.X, y_obs)
        step[name] = (_median_time(run.step, 7) / ds.n_samples, ds.n_samples, ds.n_features, ds.X.nnz)
        print(f"\none Bernoulli EM step on {name}: {step[name][0] * ds.n_samples * 1e3:.1f} ms", end="")
    print(f"\nload: sms_spam {load['sms_spam']:.2f} s, spam_assassin {load['spam_assassin']:.2f} s, "
          f"ratio {load['spam_assassin'] / load['sms_spam']:.1f}×")
    for name, (per_doc, n, v, nnz) in step.items():
        print(f"one Bernoulli EM step: {name} N = {n:,}, V = {v:,}, nnz = {nnz:,}: {per_doc * 1e6:.1f} µs a document")
    print(f"per document, spam_assassin ÷ sms_spam: {step['spam_assassin'][0] / step['sms_spam'][0]:.1f}×")
    assert all(t > 0 for t in load.values())
