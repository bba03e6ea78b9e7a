"""The lesson's defaults and the choices its controls offer, shared by the app's sidebar and the lab page.

The URL keys are the same in both (``?lam=0.1`` in the app, ``#lam=0.1`` in the lab), so a link says the
same thing to either.
"""
from __future__ import annotations


def N_(msgid: str) -> str:
    """Mark a text for the catalogue (nblab.i18n extracts every ``N_``); it is translated where it is shown.
    Written here rather than imported from nblab.i18n, which needs Babel: the lab page is made without it."""
    return msgid


#: λ values the smoothing slider offers
LAMBDAS = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
#: convergence tolerances the tolerance slider offers (relative change of the objective)
TOLS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
#: EM's starting points (nbcore.EM's ``init``)
INITS = ["uniform", "random", "labeled"]
INIT_LABELS = {
    "uniform": N_("uniform (α = 1/K, β = ½)"),
    "random": N_("random (seeded)"),
    "labeled": N_("from the labelled documents"),
}
#: the seed's range (which labels are hidden, and the random start)
SEED_MAX = 9999
#: the iteration budget's range
MAX_ITER_MAX = 1000

#: Play's speeds, iterations shown per second, slowest first. "normal", the default, is one a class can
#: follow while the teacher talks (one a second); the faster ones are for watching a long run converge.
#: The lab's JavaScript reads them from nblab/js/vocabulary.js, generated from this table
#: (``python -m nblab.vocabulary``).
SPEEDS = {"slow": 0.5, "normal": 1.0, "fast": 5.0, "faster": 20.0, "fastest": 40.0}

#: the ready-made lesson: real text where the unlabelled messages really help. Chosen by
#: scripts/choose_default_lesson.py (EM against the best supervised baseline, seeds 0–9): with 56 labelled
#: messages and λ = 0.01 (as good as the λ leave-one-out picks for supervised NB), Bernoulli EM gains
#: +2.3 ± 0.3 pts (min +1.7) over the best supervised baseline; at 90 % hidden and λ = 1 its "gain" was
#: over-smoothing (guided lesson "Is it EM, or is it λ?").
DEFAULTS = dict(
    dataset="sms_spam",     # real text; synthetic_spam (known truth) is one pick away
    hidden=99,
    lam=0.01,
    init="labeled",
    seed=0,
    uw=1.0,
    max_iter=100,
    tol=1e-6,
    classroom=False,
    speed="normal",
)
