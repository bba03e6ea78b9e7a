"""What a student's answer costs the store, against what the teacher's publish costs it, in the same run.

On a fresh store (SQLite by default; ``--pg`` a throwaway PostgreSQL of tests/kit/pg.py, or the one
``NBLAB_TEST_PG_URL`` names) one class is opened with a choice question and a number question, then,
round-robin so that machine noise hits them alike:

* ``answer``: ``dashboard.class_link.answers.answer`` of a new token (a write transaction: the class,
  the question, the token's budget and the answer checked and written);
* ``change``: the same token's answer changed (the replacing path);
* ``publish``: ``dashboard.class_link.publish`` of the teacher's next state (the baseline: the write the
  class link already makes on every Step);

and, once ``--answers`` tokens have answered, ``tally`` (the teacher's tally of the choice question, then
of the number question) against ``read`` (one class state read from the database, the cache dropped).
It prints the medians and the ratios answer ÷ publish, change ÷ publish, tally ÷ read. Nothing is asserted.

Usage::

    python benchmarks/bench_class_answers.py                  # SQLite, 300 rounds, 1,000 answers
    python benchmarks/bench_class_answers.py --pg --json out.json
"""
from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dashboard import class_link as C  # noqa: E402
from dashboard.class_link import answers as A  # noqa: E402
from dashboard.class_link import store as CS  # noqa: E402
from dashboard.data import store as S  # noqa: E402


@contextlib.contextmanager
def store_url(pg: bool):
    if not pg:
        with tempfile.TemporaryDirectory() as d:
            yield "sqlite:///" + str(Path(d) / "bench.sqlite3")
        return
    from kit.pg import cluster
    with cluster("nblab_bench_answers") as url:
        yield url


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(url: str, rounds: int, answers: int) -> dict:
    st = S.open_store(url)
    st.deadline = None   # time the work, not the deadline's thread
    try:
        A.MAX_ANSWERS = max(A.MAX_ANSWERS, rounds + answers + 10)
        A.ANSWERS_PER_MINUTE = 10 ** 6   # one token changes its answer every round here
        cid, key = C.open_class("toy_spam", {"t": 0}, store=st)
        A.ask(cid, key, "c", "choice", options=["a", "b", "c", "d"], store=st)
        A.ask(cid, key, "n", "number", lo=0, hi=1, store=st)
        changer = secrets.token_urlsafe(32)
        A.answer(cid, "c", changer, "a", store=st)
        times: dict[str, list[float]] = {"answer": [], "change": [], "publish": []}
        for i in range(rounds):
            times["answer"].append(timed(lambda: A.answer(cid, "c", secrets.token_urlsafe(32), "abcd"[i % 4], store=st)))
            times["change"].append(timed(lambda: A.answer(cid, "c", changer, "abcd"[(i + 1) % 4], store=st)))
            times["publish"].append(timed(lambda: C.publish(cid, key, {"data": "toy_spam", "t": i + 1}, store=st)))
        for i in range(answers):
            A.answer(cid, "n", secrets.token_urlsafe(32), (i * 0.618) % 1.0, store=st)
        times.update({"tally_choice": [], "tally_number": [], "read": []})
        for _ in range(max(5, rounds // 10)):
            times["tally_choice"].append(timed(lambda: A.tally(cid, key, "c", store=st)))
            times["tally_number"].append(timed(lambda: A.tally(cid, key, "n", store=st)))
            CS.clear_cache()
            times["read"].append(timed(lambda: C.read(cid, store=st)))
        med = {k: statistics.median(v) for k, v in times.items()}
        return {"store": st.kind, "rounds": rounds, "answers_choice": rounds + 1, "answers_number": answers,
                "median_s": med,
                "ratios": {"answer/publish": med["answer"] / med["publish"],
                           "change/publish": med["change"] / med["publish"],
                           "tally_choice/read": med["tally_choice"] / med["read"],
                           "tally_number/read": med["tally_number"] / med["read"]}}
    finally:
        st.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", action="store_true", help="a throwaway PostgreSQL (tests/kit/pg.py) instead of SQLite")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--answers", type=int, default=1000, help="answers to the number question before the tallies")
    ap.add_argument("--json", help="also write the numbers as JSON to this file")
    args = ap.parse_args(argv)
    with store_url(args.pg) as url:
        out = run(url, args.rounds, args.answers)
    print(f"store: {out['store']}, {out['rounds']} rounds; tallies over {out['answers_choice']} choice answers "
          f"and {out['answers_number']} numbers")
    for k, v in out["median_s"].items():
        print(f"  {k:<13} median {v * 1000:8.3f} ms")
    for k, v in out["ratios"].items():
        print(f"  {k:<18} {v:6.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
