"""Publish a lesson as a static site: ``python -m nblab.publish OUT [--dataset sms_spam] [--hidden 99] …``.

Writes ``OUT/index.html``, ``OUT/assets/`` and ``OUT/data/<name>.json`` (:func:`nblab.site.publish`): any
static web server serves the folder (university web space, GitHub Pages, ``python -m http.server -d OUT``).
A bad value is one line on stderr and exit status 2; nothing is written then.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nblab import defaults as D


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m nblab.publish",
                description="Write the Naive Bayes + EM lab as a static site (index.html, assets/, data/) "
                            "that any static web server can host.")
    p.add_argument("out", metavar="OUT", help="the folder to write (new, empty, or a previous publish)")
    p.add_argument("--dataset", default=D.DEFAULTS["dataset"],
                   help=f"a shipped data set (default {D.DEFAULTS['dataset']})")
    p.add_argument("--model", help="the event model (default: the data set's first)")
    p.add_argument("--hidden", type=int, help=f"%% of labels hidden, 0–100 (default {D.DEFAULTS['hidden']})")
    p.add_argument("--lam", type=float, help=f"smoothing λ (default {D.DEFAULTS['lam']:g})")
    p.add_argument("--init", help=f"EM's start: {', '.join(D.INITS)} (default {D.DEFAULTS['init']})")
    p.add_argument("--seed", type=int, help=f"seed, 0–{D.SEED_MAX} (default {D.DEFAULTS['seed']})")
    p.add_argument("--max-iter", dest="max_iter", type=int,
                   help=f"iteration budget, 1–{D.MAX_ITER_MAX} (default {D.DEFAULTS['max_iter']})")
    p.add_argument("--tol", type=float, help=f"stop when the objective gains less (default {D.DEFAULTS['tol']:g})")
    p.add_argument("--classroom", action="store_true", help="open in classroom mode (projector)")
    p.add_argument("--title", help="the page's title")
    return p


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 10_000 else f"{n / 1000:,.0f} KB"


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    import nbcore
    from nblab import site

    names = list(nbcore.list_datasets())
    if args.dataset not in names:
        sys.stderr.write(f"python -m nblab.publish: error: --dataset {args.dataset!r}: one of {', '.join(names)}\n")
        return 2
    settings = {k: getattr(args, k) for k in ("model", "hidden", "lam", "init", "seed", "max_iter", "tol")}
    settings = {k: v for k, v in settings.items() if v is not None}
    if args.classroom:
        settings["classroom"] = True
    out = Path(args.out)
    try:
        site.publish(out, args.dataset, title=args.title, **settings)
    except ValueError as e:     # a setting the lab refuses (check_settings names the key)
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if msg.startswith("max_iter"):
            msg = "max-iter" + msg[len("max_iter"):]
        sys.stderr.write(f"python -m nblab.publish: error: --{msg}\n")
        return 2
    except OSError as e:        # a foreign non-empty folder, a file in the way, no permission
        sys.stderr.write(f"python -m nblab.publish: error: {e.strerror + ': ' + str(e.filename) if e.filename and e.strerror else e}\n")
        return 2
    files = site.site_files(out)
    print(f"Wrote the lab ({args.dataset}) to {out}/:")
    for rel, n in sorted(files.items()):
        print(f"  {rel:<34} {_size(n)}")
    print(f"  total {_size(sum(files.values()))}")
    print(f"Try it: python -m http.server -d {out} 8000   then open http://127.0.0.1:8000/")
    print("Host it: copy the folder to any static web space (docs/publishing.md).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
