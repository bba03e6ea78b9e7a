"""Offline by design: the app, the class link and the lab page make no request beyond this computer, so a
class runs on a laptop's hotspot or a lecture hall's network without a way out (tests/browser/test_offline_room.py).

Two things Streamlit does on its own are turned off here, before the server starts:

* its **external-IP probe**: a headless ``streamlit run`` (a server, or a laptop without a display) asks
  checkip.amazonaws.com for the machine's public address, to print an "External URL" in its start-up banner
  and to allow that address as a WebSocket origin; with no route out it logs "Did not auto detect external
  IP". Streamlit has no setting for it. The banner is printed before this module is imported, so
  .streamlit/config.toml hides it (``logger.hideWelcomeMessage``) and :func:`print_urls` prints the app's
  own: the local URL and every network address students can open (dashboard/serve/addresses.py, which
  sends nothing to find them). For the origin check, Streamlit's cached answer is set to "none found" (an
  empty address, which no page's host matches).
* **usage statistics** (``browser.gatherUsageStats``), also off in .streamlit/config.toml: set here too, for
  a server started from another folder (where that file is not read), unless it was set on purpose.

Every font, script and image the pages use is served by the app itself (Streamlit's bundled fonts, the
plotly.js build in dashboard/static/, the lab's files under /class/).
"""
from __future__ import annotations

from streamlit import config, net_util

from dashboard.serve import addresses


def stay_offline() -> None:
    """Turn off Streamlit's external-IP probe and usage statistics (see the module's docstring); print the
    app's URLs in place of Streamlit's hidden banner."""
    net_util._external_ip = ""   # "already looked, none found": get_external_ip() returns it, never asks
    if not config.is_manually_set("browser.gatherUsageStats"):
        config.set_option("browser.gatherUsageStats", False, "dashboard/serve/offline.py")
    if config.get_option("logger.hideWelcomeMessage"):
        print(urls_banner(), flush=True)


def urls_banner() -> str:
    """What Streamlit's banner said, from the app's own addresses: the local URL, then each network address
    (its interface named) or the configured public URL; a line saying so when students cannot reach it."""
    port = int(config.get_option("server.port") or 8501)
    bind = config.get_option("server.address")
    lines = ["", "  You can now open the Naive Bayes + EM Lab in your browser.", ""]
    specific = bool(bind) and bind not in ("0.0.0.0", "::") and not addresses.is_loopback(bind)
    local = bind if specific else "localhost"
    lines.append(f"  Local URL: http://{local}:{port}")
    public, where, err = addresses.configured_origin()
    if public:
        lines.append(f"  Students open: {public}  (set by {where})")
    else:
        reach = addresses.bound_addresses(bind, addresses.machine_addresses()) or []
        for addr, name in reach:
            lines.append(f"  Network URL: http://{addr}:{port}" + (f"  ({name})" if name else ""))
        if not reach:
            lines.append("  No network address: students cannot open this app from their phones "
                         "(start it with --server.address 0.0.0.0 on the room's network or a hotspot).")
    if err:
        lines.append("  " + err.replace("`", ""))
    return "\n".join(lines + [""])
