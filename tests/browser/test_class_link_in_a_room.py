"""A class link that reaches the room, on a network the test makes: two network namespaces joined by a veth
pair (tests/kit/netns.py), the teacher's laptop in one, a student's phone in the other, addresses that exist
only inside them.

The app listens on every address of the teacher's namespace (``--server.address 0.0.0.0``, what a laptop in a
lecture hall runs). The teacher opens it at ``localhost`` — the README's address — and opens the class:

* the dialog says that a localhost link works only on this computer, and its link (and QR code) carry the
  teacher's address on the network instead: ``http://<the veth's address>:<port>/class/<id>``;
* the student's Chromium, in the other namespace, opens that link and follows the lesson (the page's
  follow state applied, at the teacher's iteration), then follows the teacher's Step;
* opened at the network address itself, the dialog gives that same origin and no warning.

Skipped, saying why, where network namespaces cannot be made (not root, no iproute2). Screenshots of both
dialogs go to artifacts/screenshots/class/.
"""
from __future__ import annotations

import re

import pytest

from kit import ROOT
from kit.browser import ITER_JS, require_chromium
from kit.netns import Browser, open_class_as_teacher, room, streamlit_in

pytestmark = pytest.mark.browser
require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots" / "class"
QUERY = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"
DIALOG = '[role="dialog"]'


def open_class(b: Browser, name: str, url: str, shot: str) -> tuple[str, str]:
    """The teacher's lesson at ``url``: Open for the class; returns (the dialog's link, the dialog's text)."""
    b.call("page", name=name)
    b.call("goto", name=name, url=url)
    b.call("wait_idle", name=name)
    b.call("wait_text", name=name, text="Ready: t = 0")
    open_class_as_teacher(b, name)
    link = b.call("text", name=name, selector=f"{DIALOG} [data-testid=\"stCode\"] code").strip()
    b.call("wait_function", name=name, js=f"() => !!document.querySelector('{DIALOG} img')"
                                          f" && document.querySelector('{DIALOG} img').complete")
    text = b.call("text", name=name, selector=DIALOG)
    b.call("screenshot", name=name, path=str(SHOTS / shot))
    return link, text


def test_the_class_link_opened_at_localhost_reaches_a_student_on_the_network():
    SHOTS.mkdir(parents=True, exist_ok=True)
    with room() as rm, streamlit_in(rm, rm.teacher) as (port, _log):
        teacher = Browser(rm, rm.teacher)
        student = Browser(rm, rm.student)
        try:
            link, text = open_class(teacher, "t", f"http://localhost:{port}{QUERY}", "dialog_from_localhost.png")
            # the teacher's network address, not localhost: the only origin the other namespace can reach
            assert re.fullmatch(re.escape(f"http://{rm.teacher.addr}:{port}/class/") + r"[A-Za-z0-9_-]{16}", link), link
            assert "works only on this computer" in text
            assert "localhost" in text

            # the student, on the other end of the veth, opens exactly that link
            student.call("page", name="s", viewport={"width": 390, "height": 844})
            student.call("goto", name="s", url=link)
            student.call("wait_function", name="s",
                         js="() => !!(window.__nblab && __nblab.ready && __nblab.follow && __nblab.follow.applied >= 1)")
            assert student.call("eval", name="s", js="() => [__nblab.lab.t, __nblab.follow.following]") == [0, True]

            # the teacher Steps: the student's page follows to t = 1
            teacher.call("press", name="t", key="Escape")
            teacher.call("wait_function", name="t", js=f"() => !document.querySelector('{DIALOG}')")
            teacher.call("click_role", name="t", role="button", label="Step")
            teacher.call("wait_function", name="t", js=f"() => ({ITER_JS})() === 1")
            student.call("wait_function", name="s", js="() => __nblab.lab.t === 1 && __nblab.follow.following")
            student.call("screenshot", name="s", path=str(SHOTS / "student_in_the_room.png"))

            # opened at the network address: the same origin, and nothing to warn about
            link2, text2 = open_class(teacher, "t2", f"http://{rm.teacher.addr}:{port}{QUERY}",
                                      "dialog_from_network_address.png")
            assert link2.startswith(f"http://{rm.teacher.addr}:{port}/class/"), link2
            assert "works only on this computer" not in text2
        finally:
            teacher.close()
            student.close()
