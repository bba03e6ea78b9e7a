"""What the Streamlit students measure (``Stats``) and the two small numbers helpers every report uses."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


def pct(xs: list[float], q: float) -> float | None:
    """The q-quantile of xs, linearly interpolated; None for no samples."""
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def rnd(x, nd=3):
    """round(x, nd), None kept."""
    return None if x is None else round(x, nd)


@dataclass
class Stats:
    latencies: dict = field(default_factory=lambda: {"interaction": [], "load": [], "tick": [], "need": [],
                                                     "lower": []})
    by_action: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)        # (session, action, what)
    error_alerts: list = field(default_factory=list)  # st.error texts shown (not counted as errors)
    interactions: int = 0
    sessions_started: int = 0
    sessions_completed: int = 0
    shared_seen: int = 0      # --shared: students whose first page showed the shared data set
    play_s: float = 0.0       # seconds students spent playing (the player's playhead running)
    stall_s: float = 0.0      # of which the playhead waited at the last iteration received (need late)
    plays: int = 0
    backends: Counter = field(default_factory=Counter)   # proxy cookie value -> students

    def record(self, name: str, action: str, res, kind: str = "interaction", detail: str = "") -> None:
        if res is None:
            return
        self.latencies[kind].append(res.latency)
        self.by_action.setdefault(action, []).append(res.latency)
        if kind != "load":
            self.interactions += 1
        if not res.ok:
            what = res.status if not res.exceptions else "; ".join(res.exceptions)[:300]
            self.errors.append((name, action, what, detail))
