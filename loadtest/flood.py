"""One hostile client: a fixed rate of GETs of one path (by default a class's data set with an Accept-Encoding
the server must not compress for, ``gzip;q=0``), from one address, for a while; prints what it got as JSON.

    python -m loadtest.flood http://127.0.0.1:8501/class/data/spam_assassin.json --rate 6 --seconds 60
    python -m loadtest.flood URL --encoding identity --threads 4
    python -m loadtest.flood http://127.0.0.1:8501/class/ --random-class --rate 200   # random class ids

``run_load.py --class-link --flood RATE`` runs it beside the students (loadtest/class_link.py) and puts its
counts in the summary (``flood``). Each of ``--threads`` connections sends its share of ``--rate`` a second
and waits for each whole answer (a slow server slows the flood, as it would a real client).
"""
from __future__ import annotations

import argparse
import http.client
import json
import secrets
import sys
import threading
import time
import urllib.parse


def _worker(url: str, encoding: str, rate: float, until: float, random_class: bool, source: str | None,
            out: dict, lock) -> None:
    u = urllib.parse.urlsplit(url)
    conn = None
    period = 1.0 / rate
    t_next = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= until:
            break
        if now < t_next:
            time.sleep(min(t_next - now, until - now))
            continue
        t_next += period
        path = u.path + (secrets.token_urlsafe(12) + "/state.json" if random_class else "")
        try:
            if conn is None:
                conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=30,
                                                  source_address=(source, 0) if source else None)
            conn.request("GET", path, headers={"Accept-Encoding": encoding})
            r = conn.getresponse()
            body = r.read()
            key, size = str(r.status), len(body)
            if r.getheader("connection", "").lower() == "close":
                conn.close()
                conn = None
        except OSError as e:
            key, size = type(e).__name__, 0
            conn = None
        with lock:
            out["answers"][key] = out["answers"].get(key, 0) + 1
            out["bytes"] += size
    if conn is not None:
        conn.close()


def flood(url: str, *, rate: float, seconds: float, encoding: str = "gzip;q=0", threads: int = 2,
          random_class: bool = False, source: str | None = None) -> dict:
    out: dict = {"url": url, "encoding": encoding, "rate_asked": rate, "source": source, "answers": {}, "bytes": 0}
    lock = threading.Lock()
    t0 = time.monotonic()
    until = t0 + seconds
    ts = [threading.Thread(target=_worker, args=(url, encoding, rate / threads, until, random_class, source, out, lock),
                           daemon=True) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(seconds + 60)
    took = time.monotonic() - t0
    out["seconds"] = round(took, 1)
    out["rate_got"] = round(sum(out["answers"].values()) / took, 2) if took else None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url")
    ap.add_argument("--rate", type=float, default=6.0, help="requests a second in all (default 6)")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--encoding", default="gzip;q=0", help="the Accept-Encoding sent (default gzip;q=0)")
    ap.add_argument("--threads", type=int, default=2, help="connections (default 2)")
    ap.add_argument("--source", help="the local address to send from (e.g. 127.0.0.2: another client than "
                                     "the students on 127.0.0.1)")
    ap.add_argument("--random-class", action="store_true",
                    help="URL is a /class/ prefix: each request asks a new random class id's state.json")
    a = ap.parse_args(argv)
    if a.rate <= 0 or a.threads < 1 or a.seconds <= 0:
        ap.error("--rate and --seconds must be positive, --threads at least 1")
    print(json.dumps(flood(a.url, rate=a.rate, seconds=a.seconds, encoding=a.encoding, threads=a.threads,
                           random_class=a.random_class, source=a.source)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
