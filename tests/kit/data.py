"""Data sets built by hand that tests in more than one folder read."""
from __future__ import annotations


def youtube_like(n: int = 60) -> bytes:
    """A YouTube-comments export as it comes: COMMENT_ID values are long opaque codes (38 to 43 letters,
    digits, "-" and "_", no space; most of YouTube's are 43), all different."""
    import random

    rnd = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
    words = "check out my channel love this song so much best video ever subscribe please".split()
    rows = ["COMMENT_ID,AUTHOR,DATE,CONTENT,CLASS"]
    for i in range(n):
        code = "".join(rnd.choice(alphabet) for _ in range(rnd.choice((38, 43, 43))))
        text = " ".join(rnd.choice(words) for _ in range(rnd.randint(4, 12)))
        rows.append(f"{code},user {i},2014-01-{1 + i % 28:02d}T10:00:00,{text},{i % 2}")
    return ("\n".join(rows) + "\n").encode()


#: the link that froze a student's tab for 43 s on such a set (every value within the lab's limits)
LONG_LINK = "model=bernoulli&init=random&lam=0&hidden=100&seed=2&max_iter=1000&tol=1e-08&t=1000"


def long_link_data(n: int = 6000, v: int = 3615, k: int = 20, seed: int = 0) -> dict:
    """The lab's data of an upload at the size a class may use (6,000 documents, 3,615 words, 20 classes
    whose words overlap): each class draws a document's words from half a shared background and half its
    own mixture, ~40 words a document, kept as word presence (Bernoulli)."""
    import numpy as np
    import scipy.sparse as sp

    from nblab.data import lab_data_from_arrays

    rng = np.random.default_rng(seed)
    background = rng.dirichlet(np.full(v, 0.3))
    own = rng.dirichlet(np.full(v, 0.05), size=k)
    probs = 0.5 * background + 0.5 * own
    y = rng.integers(0, k, size=n)
    rows, cols = [], []
    for i in range(n):
        words = np.unique(rng.choice(v, size=int(rng.integers(20, 60)), p=probs[y[i]]))
        rows.append(np.full(words.size, i))
        cols.append(words)
    r, c = np.concatenate(rows), np.concatenate(cols)
    X = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, v))
    return lab_data_from_arrays(X, y, kind="binary", class_names=[f"topic {j}" for j in range(k)],
                                feature_names=[f"w{j}" for j in range(v)], name="big upload", y_true=y)
