"""Which address the class link carries (dashboard/serve/addresses.py): the configured public URL, the
page's own origin when it is not a loopback one, else this computer's network addresses (a choice when there
are several), and a plain sentence when the link works only on this computer. The machine's own interface
list is checked against iproute2's (``ip -4 -o addr``), an independent reader of the same kernel table."""
from __future__ import annotations

import ipaddress
import shutil
import subprocess

import pytest

from dashboard.serve import addresses as ad

MACHINE = [("192.168.1.20", "wlan0"), ("10.0.0.5", "eth0"), ("172.17.0.1", "docker0")]
NONE = (None, "", None)


def test_a_page_opened_at_localhost_gets_the_network_address_and_says_why():
    link = ad.class_link("http://localhost:8501/?dataset=sms_spam", bind=None, machine=MACHINE, configured=NONE)
    assert link.origin == "http://192.168.1.20:8501"
    assert link.url("abc") == "http://192.168.1.20:8501/class/abc"
    assert [o.origin for o in link.options] == ["http://192.168.1.20:8501", "http://10.0.0.5:8501",
                                                "http://172.17.0.1:8501"]
    assert link.loopback and link.reachable
    assert "You opened this app at `localhost`" in link.note and "works only on this computer" in link.note


def test_the_page_port_is_kept_and_127_0_0_1_counts_as_loopback():
    link = ad.class_link("http://127.0.0.1:9000/", bind="0.0.0.0", machine=MACHINE, configured=NONE)
    assert link.origin == "http://192.168.1.20:9000" and link.loopback


def test_the_teacher_picks_among_several_addresses_and_a_stale_pick_falls_back():
    link = ad.class_link("http://localhost:8501/", pick="http://10.0.0.5:8501", bind=None, machine=MACHINE,
                         configured=NONE)
    assert link.origin == "http://10.0.0.5:8501"
    gone = ad.class_link("http://localhost:8501/", pick="http://10.9.9.9:8501", bind=None, machine=MACHINE,
                         configured=NONE)
    assert gone.origin == "http://192.168.1.20:8501"


def test_a_page_opened_at_the_network_address_keeps_it_and_needs_no_note():
    link = ad.class_link("http://192.168.1.20:8501/lesson", bind=None, machine=MACHINE, configured=NONE)
    assert link.origin == "http://192.168.1.20:8501" and link.note is None and not link.loopback
    host = ad.class_link("https://lab.example.edu/", bind=None, machine=MACHINE, configured=NONE)
    assert host.origin == "https://lab.example.edu" and host.options[0].label.startswith("the address this page")


def test_a_server_listening_on_loopback_only_says_the_link_works_only_here():
    link = ad.class_link("http://localhost:8501/", bind="127.0.0.1", machine=MACHINE, configured=NONE)
    assert link.origin == "http://localhost:8501" and not link.reachable
    assert "listens on `127.0.0.1` only" in link.note and "--server.address 0.0.0.0" in link.note


def test_a_machine_on_no_network_says_so():
    link = ad.class_link("http://localhost:8501/", bind=None, machine=[], configured=NONE)
    assert not link.reachable and "no address on a network" in link.note


def test_a_server_bound_to_one_address_offers_only_that_one():
    link = ad.class_link("http://localhost:8501/", bind="10.0.0.5", machine=MACHINE, configured=NONE)
    assert [o.origin for o in link.options] == ["http://10.0.0.5:8501"]


def test_the_public_url_wins(monkeypatch):
    monkeypatch.setenv(ad.ENV, "https://lab.example.edu/some/path")
    origin, where, err = ad.configured_origin()
    assert (origin, where, err) == ("https://lab.example.edu", ad.ENV, None)
    link = ad.class_link("http://localhost:8501/", bind=None, machine=MACHINE)
    assert link.url("x") == "https://lab.example.edu/class/x" and link.note is None


@pytest.mark.parametrize("bad", ["ftp://files.example", "http://", "http://host:notaport", "https://[::1"])
def test_an_unusable_public_url_is_said_and_not_used(monkeypatch, bad):
    monkeypatch.setenv(ad.ENV, bad)
    link = ad.class_link("http://localhost:8501/", bind=None, machine=MACHINE)
    assert link.origin == "http://192.168.1.20:8501"
    assert link.note.startswith("`NBLAB_PUBLIC_URL` is set, but not to an address the class can open")


@pytest.mark.parametrize("host,loop", [("localhost", True), ("LOCALHOST.", True), ("app.localhost", True),
                                       ("127.0.0.1", True), ("127.1.2.3", True), ("[::1]", True), ("0.0.0.0", True),
                                       ("192.168.1.20", False), ("lab.example.edu", False), ("10.0.0.1", False)])
def test_loopback_hosts(host, loop):
    assert ad.is_loopback(host) is loop


def test_a_host_in_the_note_is_a_code_span_not_markdown():
    link = ad.class_link("http://a*b*.localhost:8501/", bind="127.0.0.1", machine=[], configured=NONE)
    assert "listens on `127.0.0.1` only" in link.note
    assert ad._code("a`*b*`") == "`a*b*`"


@pytest.mark.skipif(shutil.which("ip") is None, reason="no iproute2 `ip` to compare with")
def test_the_machine_addresses_are_the_kernels_non_loopback_ones():
    out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, check=True).stdout
    theirs = set()
    for line in out.splitlines():
        f = line.split()
        addr = f[3].split("/")[0]
        ip = ipaddress.ip_address(addr)
        if not (ip.is_loopback or ip.is_link_local):
            theirs.add(addr)
    ours = ad.machine_addresses()
    # SIOCGIFADDR reads one (the primary) address per interface; iproute2 lists every one
    assert {a for a, _ in ours} <= theirs
    assert {line.split()[1] for line in out.splitlines()
            if not ipaddress.ip_address(line.split()[3].split("/")[0]).is_loopback} >= {n for _, n in ours if n}
    assert len(ours) == len({line.split()[1] for line in out.splitlines()
                             if not ipaddress.ip_address(line.split()[3].split("/")[0]).is_loopback
                             and not ipaddress.ip_address(line.split()[3].split("/")[0]).is_link_local})


def test_the_labels_and_the_note_are_in_the_page_s_language():
    from nblab import i18n

    def de(msgid, **params):
        return i18n.gettext("de", msgid, **params)
    link = ad.class_link("http://localhost:8501/", bind=None, machine=MACHINE, configured=NONE, gettext=de)
    assert link.note.startswith("Sie haben diese App unter `localhost` geöffnet:"), link.note
    assert all(o.label.startswith("dieser Computer") for o in link.options), link.options
    alone = ad.class_link("http://127.0.0.1:8501/", bind="127.0.0.1", machine=MACHINE, configured=NONE, gettext=de)
    assert alone.note.startswith("Diese App hört nur auf `127.0.0.1`") and "`--server.address 0.0.0.0`" in alone.note
    assert [o.label for o in alone.options] == ["nur dieser Computer"]
    bad = ad.class_link("http://localhost:8501/", bind=None, machine=MACHINE,
                        configured=(None, ad.ENV, ad._BAD_URL), gettext=de)
    assert bad.note.startswith("`NBLAB_PUBLIC_URL` ist gesetzt, aber"), bad.note
