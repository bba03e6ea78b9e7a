"""A fair share of the server's CPU for heavy work (no Streamlit here).

One server process serves a whole class. Most of what a student does is light (a Step, a λ change:
tens of milliseconds), but some work is heavy: parsing and vectorising an uploaded CSV, running EM
to convergence, recomputing a link's run to its iteration, a session's first build. Without a limit,
one client opening 30 sessions that each do heavy work keeps every core busy and another student's
Step waits seconds behind it.

:class:`FairGate` lets at most ``slots`` pieces of heavy work run at once in the process; the rest
wait in a queue. Light work never passes through the gate, so a Step only ever shares the CPU with
``slots`` heavy jobs. The queue is fair between clients: when a slot frees, the waiting job of the
client with the fewest jobs running goes first, and among those the client served longest ago
(then first come, first served), so one client with 30 queued jobs cannot hold back another
client's one. The gate is re-entrant per thread: heavy work inside heavy work takes no second slot.

A waiting job is told where it stands (``on_wait(ahead)``) when it joins the queue and every
``poll`` seconds while it waits, so a page can show a "waiting" state, and an exception raised by
``on_wait`` (Streamlit stopping an outdated script run) leaves the queue cleanly.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Callable, Iterator


class FairGate:
    """At most ``slots`` holders at once; waiting holders are served fairly between clients."""

    def __init__(self, slots: int, poll: float = 1.0):
        if slots < 1:
            raise ValueError("a gate needs at least one slot")
        self.slots = int(slots)
        self.poll = float(poll)
        self._cv = threading.Condition()
        self._running: dict[str, int] = {}    # client -> jobs holding a slot
        self._queue: list[tuple[int, str]] = []  # (ticket, client), in arrival order
        self._last_served: dict[str, int] = {}   # client -> the grant number of its latest job
        self._tickets = 0
        self._grants = 0
        self._local = threading.local()
        # counters for the operator and tests
        self.granted = 0          # jobs that got a slot
        self.waited = 0           # of those, jobs that had to wait
        self.peak_running = 0     # most jobs holding slots at once
        self.peak_waiting = 0     # longest queue
        self.history: deque[str] = deque(maxlen=1000)   # clients in the order their jobs got a slot

    # ---- what the operator and a page can read -------------------------------------------------

    @property
    def running(self) -> int:
        with self._cv:
            return sum(self._running.values())

    @property
    def waiting(self) -> int:
        with self._cv:
            return len(self._queue)

    def stats(self) -> dict:
        with self._cv:
            return {"slots": self.slots, "running": sum(self._running.values()), "waiting": len(self._queue),
                    "granted": self.granted, "waited": self.waited, "peak_running": self.peak_running,
                    "peak_waiting": self.peak_waiting}

    # ---- holding a slot -------------------------------------------------------------------------

    @contextmanager
    def hold(self, client: str, on_wait: Callable[[int], None] | None = None,
             on_granted: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold one slot for ``client`` while the block runs (waiting for it if need be).
        ``on_wait(ahead)``: called while waiting, with the number of jobs that go first;
        ``on_granted()``: called once a job that had to wait got its slot."""
        depth = getattr(self._local, "depth", 0)
        if depth:                      # already holding a slot in this thread
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth = depth
            return
        self._acquire(str(client), on_wait, on_granted)
        self._local.depth = 1
        try:
            yield
        finally:
            self._local.depth = 0
            self._release(str(client))

    def _pick(self) -> int | None:
        """Index in the queue of the job that goes next (call with the lock held)."""
        if not self._queue or sum(self._running.values()) >= self.slots:
            return None
        return min(range(len(self._queue)), key=lambda i: (self._running.get(self._queue[i][1], 0),
                                                           self._last_served.get(self._queue[i][1], -1),
                                                           self._queue[i][0]))

    def _ahead(self, ticket: int) -> int:
        """How many waiting jobs would be served before ``ticket`` as things stand (lock held)."""
        order, running, served = [], dict(self._running), dict(self._last_served)
        queue = list(self._queue)
        n = 0
        while queue:
            i = min(range(len(queue)), key=lambda j: (running.get(queue[j][1], 0), served.get(queue[j][1], -1),
                                                      queue[j][0]))
            t, c = queue.pop(i)
            if t == ticket:
                return n
            n += 1
            running[c] = running.get(c, 0) + 1
            served[c] = len(order) + self._grants + 1
            order.append(t)
        return n

    def _grant(self, client: str) -> None:
        self._running[client] = self._running.get(client, 0) + 1
        self._grants += 1
        self._last_served[client] = self._grants
        self.granted += 1
        self.history.append(client)
        self.peak_running = max(self.peak_running, sum(self._running.values()))

    def _acquire(self, client: str, on_wait, on_granted) -> None:
        with self._cv:
            if not self._queue and sum(self._running.values()) < self.slots:
                self._grant(client)
                return
            self._tickets += 1
            ticket = self._tickets
            self._queue.append((ticket, client))
            self.peak_waiting = max(self.peak_waiting, len(self._queue))
        try:
            told = None
            while True:
                with self._cv:
                    i = self._pick()
                    if i is not None and self._queue[i][0] == ticket:
                        self._queue.pop(i)
                        self._grant(client)
                        self.waited += 1
                        self._cv.notify_all()
                        break
                    ahead = self._ahead(ticket)
                if on_wait is not None and ahead != told:
                    on_wait(ahead)
                    told = ahead
                with self._cv:
                    self._cv.wait(self.poll)
                if on_wait is not None:
                    on_wait(ahead)     # also a chance for the caller to stop waiting (an exception)
        except BaseException:
            with self._cv:
                self._queue = [(t, c) for t, c in self._queue if t != ticket]
                self._cv.notify_all()
            raise
        if on_granted is not None:
            on_granted()

    def _release(self, client: str) -> None:
        with self._cv:
            n = self._running.get(client, 0) - 1
            if n > 0:
                self._running[client] = n
            else:
                self._running.pop(client, None)
            self._cv.notify_all()


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.01) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds passed (for tests and tools)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
