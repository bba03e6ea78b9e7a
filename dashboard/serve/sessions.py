"""Who is asking: the client a page run belongs to (its network address), this run's session id, and the
sessions the Streamlit server holds now. Read from Streamlit's runtime; no state of its own."""
from __future__ import annotations

import ipaddress

import streamlit as st
from streamlit import runtime as st_runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx


def client() -> str:
    """The client a session belongs to: its network address (an IPv6 one by its /64), or
    "address:unknown" for every client Streamlit gives no address for (localhost, a proxy that does
    not forward it): the same rule as the share quota's (dashboard.lesson.sharing)."""
    try:
        ip = getattr(st.context, "ip_address", None)
    except Exception:  # noqa: BLE001 - no script run context (a tool, a test)
        ip = None
    return address_key(ip)


def address_key(host) -> str:
    """A client's key from its address: the address (IPv6 by its /64, an IPv4-mapped one as IPv4), or
    "address:unknown" when there is none or it is not an address."""
    if not isinstance(host, str):
        return "address:unknown"
    try:
        addr = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return "address:unknown"
    if addr.version == 6:
        if addr.ipv4_mapped is not None:
            return "address:" + str(addr.ipv4_mapped)
        return "address:" + str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return "address:" + str(addr)


def session_id() -> str | None:
    """This page run's session id, or None outside a script run (a tool, a test)."""
    try:
        ctx = get_script_run_ctx()
        return ctx.session_id if ctx else None
    except Exception:  # noqa: BLE001
        return None


def live_session_ids() -> set[str] | None:
    """Ids of the sessions the Streamlit server holds now (connected, or kept for a reconnect);
    None when there is no server (AppTest, a tool): then nothing is pruned."""
    try:
        if not st_runtime.Runtime.exists():
            return None
        return {s.session.id for s in st_runtime.Runtime.instance()._session_mgr.list_sessions()}
    except Exception:  # noqa: BLE001 - a Streamlit internals change: count what we registered
        return None
