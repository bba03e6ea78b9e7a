"""Offline by design, the fast half (the packet-level check is tests/browser/test_offline_room.py): once
dashboard/server.py has called ``stay_offline()``, Streamlit's external-IP lookup answers "none" without a
request, usage statistics are off, its start-up banner (which would ask checkip.amazonaws.com) is hidden by
the project's config and the app's own banner lists this machine's network addresses."""
from __future__ import annotations

import pytest
import tomllib

from dashboard.serve import addresses, offline
from kit import ROOT


@pytest.fixture
def streamlit_state():
    from streamlit import config, net_util
    saved = net_util._external_ip, config.get_option("browser.gatherUsageStats")
    yield config, net_util
    net_util._external_ip = saved[0]
    config.set_option("browser.gatherUsageStats", saved[1])


def test_the_external_ip_probe_sends_no_request(monkeypatch, streamlit_state, capsys):
    config, net_util = streamlit_state
    import requests

    asked = []
    monkeypatch.setattr(requests, "get", lambda url, **kw: asked.append(url))
    net_util._external_ip = None
    offline.stay_offline()
    assert net_util.get_external_ip() in ("", None) and asked == []
    assert config.get_option("browser.gatherUsageStats") is False


def test_the_projects_config_hides_streamlits_banner_and_usage_statistics():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["logger"]["hideWelcomeMessage"] is True
    assert cfg["browser"]["gatherUsageStats"] is False


def test_the_apps_banner_lists_the_network_addresses(monkeypatch):
    monkeypatch.delenv(addresses.ENV, raising=False)
    monkeypatch.setattr(addresses, "machine_addresses", lambda: [("192.168.1.20", "wlan0"), ("10.0.0.5", "eth0")])
    text = offline.urls_banner()
    assert "Local URL: http://localhost:" in text
    assert "Network URL: http://192.168.1.20:" in text and "(wlan0)" in text and "Network URL: http://10.0.0.5:" in text
    monkeypatch.setenv(addresses.ENV, "https://lab.example.edu")
    assert "Students open: https://lab.example.edu  (set by NBLAB_PUBLIC_URL)" in offline.urls_banner()
