"""The load test's pieces that need no server: the player protocol's playhead and messages (the keys are the
app's own), the class-link HTTP client's response head, and the quantile every report uses."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

from dashboard.lesson.player import LOWER_KEY, MAIN_KEY
from loadtest.http_client import parse_head
from loadtest.player_protocol import LOWER, PLAYER, Playhead, lower_wanted, refresh_lower, view_state
from loadtest.stats import pct


def test_the_component_keys_are_the_apps():
    assert (PLAYER, LOWER) == (MAIN_KEY, LOWER_KEY)


def test_view_state_is_what_player_js_reports():
    assert view_state(3, 4, 5, True, 9) == {"run": 3, "t": 4, "revealed": 5, "playing": True, "play": 9}


def test_the_playhead_moves_at_fps_and_stalls_past_the_last_iteration_held():
    ph = Playhead({"run": 1, "n": 4, "done": False, "fps": 5, "revealed": 0}, t=0, now=0.0)
    assert ph.advance(0.39) == 0.0 and ph.t == 1          # 0.39 s at 5 fps: one step
    stall = ph.advance(1.0)                               # 5 steps from t=0 in all, only 3 held
    assert ph.t == 3 and ph.revealed == 3 and abs(stall - 0.4) < 1e-9
    assert ph.wants_more(1.0)
    ph.pending = 1.0
    assert not ph.wants_more(2.0) and ph.wants_more(4.0)  # at most one need outstanding per 3 s
    assert ph.need(7) == {"run": 1, "upto": 3 + 8, "t": 3, "revealed": 3, "play": 7}
    ph.receive({"run": 1, "n": 12, "done": True})         # the frames came: nothing outstanding
    assert ph.pending == 0.0 and not ph.wants_more(5.0) and not ph.at_end()


class _Session:
    def __init__(self, heads: dict):
        self.heads, self.sent = heads, []

    def component(self, key):
        return SimpleNamespace(head=self.heads[key]) if key in self.heads else None

    async def component_trigger(self, key, name, value):
        self.sent.append((key, name, value))
        return "sent"


def test_the_panels_below_are_refreshed_only_when_they_lag():
    lagging = _Session({PLAYER: {"lower": "b"}, LOWER: {"drawn": "a"}})
    assert lower_wanted(lagging) == "b"
    assert asyncio.run(refresh_lower(lagging)) == "sent" and lagging.sent == [(LOWER, "refresh", "b")]
    level = _Session({PLAYER: {"lower": "a"}, LOWER: {"drawn": "a"}})
    assert asyncio.run(refresh_lower(level)) is None and level.sent == []
    assert lower_wanted(_Session({PLAYER: {"lower": "a"}})) is None


def test_a_response_head_gives_status_headers_and_cookies():
    jar: dict = {}
    status, headers = parse_head(b"HTTP/1.1 304 Not Modified\r\nETag: \"v3\"\r\nSet-Cookie: NBLAB=app1; path=/\r\n"
                                 b"Vary: a\r\nVary: b\r\n\r\n", jar)
    assert status == 304 and headers["etag"] == '"v3"' and headers["vary"] == "a, b"
    assert jar == {"NBLAB": "app1"}


def test_pct_interpolates():
    assert pct([], 0.5) is None
    assert pct([3.0, 1.0, 2.0], 0.5) == 2.0
    assert abs(pct([0.0, 10.0], 0.95) - 9.5) < 1e-9
