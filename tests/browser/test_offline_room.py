"""Offline by design: a lecture hall whose network has no way out (a laptop's hotspot, a blocked network).

Two network namespaces joined by a veth pair (tests/kit/netns.py), each given a default route to the other
end and a resolver at 192.0.2.53 that nobody answers, so that every attempt to reach anything beyond the room
— a TCP or UDP connection, a DNS query for a font's or a script's host, Streamlit's external-IP probe, usage
statistics — leaves on the veth, where a raw socket records it (tests/kit/netns_capture.py), instead of failing
unseen inside the kernel. In the room: the app (``streamlit run dashboard/server.py`` on every address, headless,
as a laptop in a lecture hall runs it), the teacher's Chromium opening every page of the app and the lesson's
class link, and one student's Chromium following the class.

Checked: nothing at all was sent beyond the room. A marker datagram sent beyond the room at the end from each
namespace is recorded (so the recorder sees such packets, and has read everything sent before it). The
server's log has no "Did not auto detect external IP" either.
"""
from __future__ import annotations

import pytest

from dashboard import pages
from kit import ROOT
from kit.browser import require_chromium
from kit.netns import Browser, Recorder, open_class_as_teacher, room, streamlit_in

pytestmark = pytest.mark.browser
require_chromium()

SHOTS = ROOT / "artifacts" / "screenshots" / "class"
QUERY = "/?dataset=toy_spam&hidden=50&lam=1&init=labeled"
DIALOG = '[role="dialog"]'


def test_a_class_in_a_room_with_no_way_out_sends_nothing_beyond_it():
    with room(routes_out=True) as rm:
        rec_t, rec_s = Recorder(rm, rm.teacher), Recorder(rm, rm.student)
        try:
            with streamlit_in(rm, rm.teacher) as (port, log):
                teacher = Browser(rm, rm.teacher)
                student = Browser(rm, rm.student)
                try:
                    # every page of the app, drawn
                    teacher.call("page", name="t")
                    for p in pages.PAGES:
                        teacher.call("goto", name="t", url=f"http://localhost:{port}/{p.url_path}")
                        teacher.call("wait_idle", name="t") if p.default else teacher.call(
                            "wait_function", name="t", js="() => !!document.querySelector('[data-testid=\"stMain\"] h1')"
                                                          " && document.fonts.status === 'loaded'")
                    # the lesson, its class link, one student following it
                    teacher.call("goto", name="t", url=f"http://localhost:{port}{QUERY}")
                    teacher.call("wait_idle", name="t")
                    teacher.call("wait_text", name="t", text="Ready: t = 0")
                    open_class_as_teacher(teacher, "t")
                    link = teacher.call("text", name="t", selector=f"{DIALOG} [data-testid=\"stCode\"] code").strip()
                    assert link.startswith(f"http://{rm.teacher.addr}:{port}/class/"), link
                    student.call("page", name="s", viewport={"width": 390, "height": 844})
                    student.call("goto", name="s", url=link)
                    student.call("wait_function", name="s", js="() => !!(window.__nblab && __nblab.ready"
                                                               " && __nblab.follow && __nblab.follow.applied >= 1)")
                    student.call("wait_function", name="s", js="() => document.fonts.status === 'loaded'")
                    asked = teacher.call("requests", name="t") + student.call("requests", name="s")
                finally:
                    teacher.close()
                    student.close()
                rec_t.mark(9)
                rec_s.mark(9)
                log_text = log.read_text()
            beyond = rec_t.beyond((9,)) + rec_s.beyond((9,))
            queries = sorted({(r["src"], r["query"]) for r in beyond if "query" in r})
            assert beyond == [], f"sent beyond the room: {len(beyond)} packets; DNS queries {queries}; {beyond[:10]}"
            room_origins = (f"http://localhost:{port}/", f"http://{rm.teacher.addr}:{port}/")
            assert asked and [u for u in asked if not u.startswith(room_origins + ("data:", "blob:"))] == []
            assert "Did not auto detect external IP" not in log_text
        finally:
            rec_t.close()
            rec_s.close()
