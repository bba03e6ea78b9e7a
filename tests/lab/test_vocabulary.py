"""The lesson's shared vocabulary is written once: nblab/defaults.py's Play speeds reach the browser through
the generated nblab/js/vocabulary.js, and no other file spells the table out again."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from kit import ROOT
from nblab import vocabulary
from nblab.defaults import DEFAULTS, SPEEDS


def test_the_committed_module_is_what_the_table_gives():
    assert vocabulary.JS_PATH.read_text(encoding="utf-8") == vocabulary.js_source(), \
        "nblab/js/vocabulary.js is stale: run python -m nblab.vocabulary"
    assert vocabulary.main(["--check"]) == 0


def test_check_says_what_to_run_when_the_module_is_stale(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "vocabulary.js"
    stale.write_text("export const SPEEDS = { normal: 5 };\n", encoding="utf-8")
    monkeypatch.setattr(vocabulary, "JS_PATH", stale)
    assert vocabulary.main(["--check"]) == 1
    assert "run python -m nblab.vocabulary" in capsys.readouterr().err


def test_play_starts_at_a_speed_a_class_can_follow_with_faster_ones_to_choose():
    rates = list(SPEEDS.values())
    assert rates == sorted(rates) and len(set(rates)) == len(rates)      # slowest first, each its own
    assert 0.5 <= SPEEDS[DEFAULTS["speed"]] <= 2                          # about one iteration a second
    assert sum(r > SPEEDS[DEFAULTS["speed"]] for r in rates) >= 2        # faster choices
    assert max(rates) >= 20                                              # a long run converges in seconds


@pytest.mark.parametrize("speed", list(SPEEDS))
def test_the_server_s_play_shows_the_browser_s_iterations_a_second(speed):
    steps, interval = vocabulary.server_tick(speed)
    assert steps >= 1 and interval >= vocabulary.MIN_TICK_S
    assert steps / interval == pytest.approx(SPEEDS[speed], rel=0.15)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_browser_reads_the_same_speeds():
    out = subprocess.run(["node", "--input-type=module", "-e",
                          "import { SPEEDS, DEFAULT_SPEED } from './nblab/js/state.js';"
                          "console.log(JSON.stringify({ SPEEDS, DEFAULT_SPEED }));"],
                         cwd=str(ROOT), capture_output=True, text=True, check=True, timeout=60).stdout
    got = json.loads(out)
    assert got == {"SPEEDS": SPEEDS, "DEFAULT_SPEED": DEFAULTS["speed"]}


def test_no_other_source_file_spells_the_speed_table_out():
    # a table of the speeds written again would say "fastest" next to a number (fastest: 40, "fastest": 40)
    table = re.compile(r"""["']?fastest["']?\s*[:=]\s*\(?\d""")
    allowed = {ROOT / "nblab" / "defaults.py", vocabulary.JS_PATH}
    found = [str(p.relative_to(ROOT)) for folder in ("nblab", "dashboard")
             for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".js") and p not in allowed
             and table.search(p.read_text(encoding="utf-8"))]
    assert not found, found
