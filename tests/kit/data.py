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
