"""The load test's students send the lesson player's traffic, against a real server (no browser).

A student presses Play in the player: the state `view` (playing), then `need` triggers as the
playhead runs short, and the server computes the iterations asked for; Pause reports the iteration
shown and the server drops what was computed beyond it. A drag reports the iteration dropped on.
Same protocol as dashboard/lesson/player/player.js (loadtest/player_protocol.py); a failure here means
the load test no longer measures what a playing student costs.
"""
import asyncio
import random
import time

import pytest

from loadtest.player_protocol import PLAYER
from loadtest.server import free_port, start_server, stop_server, wait_health
from loadtest.stats import Stats
from loadtest.student import Student


@pytest.mark.slow
def test_play_sends_need_and_the_server_computes_ahead(tmp_path):
    port = free_port()
    proc = start_server("dashboard/app.py", port, tmp_path / "server.log")
    try:
        wait_health(port, proc)
        stats = Stats()

        async def go():
            st = Student(0, f"ws://127.0.0.1:{port}/_stcore/stream", stats, time.perf_counter() + 60,
                         random.Random(1), (0.1, 0.2), 60.0)
            await st.s.connect()
            try:
                assert st._check("load", await st.s.load(), "load")
                c = st.s.component(PLAYER)
                assert c is not None, f"no {PLAYER} component on the page: {sorted(st.s.components)}"
                n0 = c.head["n"]
                assert await st.play_player()
                n_played = st.s.component(PLAYER).head["n"]
                assert await st.drag_player()
                return n0, n_played
            finally:
                await st.s.close()

        n0, n_played = asyncio.run(go())
    finally:
        stop_server(proc)
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    assert stats.errors == [], stats.errors
    assert stats.plays == 1
    assert len(stats.latencies["need"]) >= 1             # the playhead ran short and asked for more
    assert n_played > n0                                 # ... and the server computed them
    assert {"play", "pause", "scrub"} <= set(stats.by_action), stats.by_action
