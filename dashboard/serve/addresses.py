"""Which address the class link carries: one the students' phones can open.

The teacher's page URL is the wrong default on a laptop: opened at ``http://localhost:8501`` (what
``streamlit run`` opens), a link with that host works only on the teacher's computer. So the link's origin is,
in order:

1. the deployment's public URL, when one is configured: the environment variable ``NBLAB_PUBLIC_URL``
   (``https://lab.example.edu``, ``http://192.168.1.20:8501``), else Streamlit's own
   ``browser.serverAddress`` when it is set (``--browser.serverAddress``, ``.streamlit/config.toml``);
2. the page's own origin, when the teacher opened it at an address that is not this computer's loopback
   (the Network URL, a host name, a proxy): students reach the server the way the teacher did;
3. this machine's addresses on the networks it is connected to (what Streamlit prints as the Network URL),
   with the port the page was opened at; the address of the default route first, then the other interfaces
   (Wi-Fi, Ethernet, a hotspot), virtual bridges last. The teacher picks one when there are several.

When the server listens on a loopback address only (``--server.address 127.0.0.1``) no other machine can
reach it, and the page says so instead of offering an address that would not answer.

Nothing here sends a packet: the interfaces are read from the kernel (``SIOCGIFADDR`` per interface on Linux,
the host name's addresses elsewhere) and the default route's address is found by ``connect()`` on a UDP socket,
which only asks the routing table.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import struct
import sys
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from streamlit import config

from nblab.i18n import N_, fill

#: the environment variable that sets the address students open (docs/class_link.md, "The link's address")
ENV = "NBLAB_PUBLIC_URL"

#: interface names of virtual bridges and tunnels: offered after the real networks (never first)
_VIRTUAL = ("docker", "br-", "veth", "virbr", "lxc", "lxd", "vmnet", "vboxnet", "tun", "tap", "zt", "tailscale",
            "wg", "cni", "flannel", "podman")


#: the message for an unusable NBLAB_PUBLIC_URL (Markdown: the example is a code span, never a live link)
_BAD_URL = N_("`NBLAB_PUBLIC_URL` is set, but not to an address the class can open (it should look like "
              "`http://192.168.1.20:8501`), so it is not used.")


@dataclass(frozen=True)
class Address:
    """One origin a student could open: ``origin`` (scheme://host:port) and what it is (``label``)."""
    origin: str
    label: str


@dataclass(frozen=True)
class Link:
    """What the class dialog shows: the ``options`` (the first is the default), the one in use (``origin``),
    whether the page was opened at a loopback address (``loopback``), and ``note``, a sentence for the teacher
    (None when the link needs no explanation). ``reachable``: False when no other machine can open the link."""
    origin: str
    options: tuple[Address, ...] = field(default_factory=tuple)
    loopback: bool = False
    reachable: bool = True
    note: str | None = None

    def url(self, cid: str) -> str:
        return f"{self.origin}/class/{cid}"


def _code(text: str) -> str:
    """``text`` as a Markdown code span (shown literally: no emphasis, no link), on one line."""
    return "`" + " ".join(str(text).replace("`", "").split())[:80] + "`"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this computer only: localhost (and ``*.localhost``), 127.0.0.0/8, ::1,
    the unspecified addresses."""
    h = (host or "").strip().strip("[]").lower().rstrip(".")
    if h in ("", "localhost") or h.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(h)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def parse_public_url(value: str) -> tuple[str | None, str | None]:
    """``(origin, None)`` for a usable public URL (scheme, host and port kept, a trailing path dropped because
    the class routes are at the server's root), or ``(None, message)`` saying what is wrong with it."""
    v = (value or "").strip()
    if not v:
        return None, None
    try:
        parts = urlsplit(v if "://" in v else "http://" + v)
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        return None, _BAD_URL
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None, _BAD_URL
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}", None


def _config(name: str, default=None):
    try:
        return config.get_option(name)
    except Exception:   # outside a Streamlit process (tests of this module, scripts)
        return default


def _config_set(name: str) -> bool:
    try:
        return bool(config.is_manually_set(name))
    except Exception:
        return False


def configured_origin() -> tuple[str | None, str, str | None]:
    """The deployment's public origin, where it was set (``NBLAB_PUBLIC_URL`` or ``browser.serverAddress``),
    and a message when the variable is set to something unusable (then the other addresses are used)."""
    origin, err = parse_public_url(os.environ.get(ENV, ""))
    if origin:
        return origin, ENV, None
    if _config_set("browser.serverAddress"):
        host = str(_config("browser.serverAddress") or "")
        if host and not is_loopback(host):
            port = int(_config("browser.serverPort") or _config("server.port") or 8501)
            hp = f"[{host}]" if ":" in host else host
            return (f"http://{hp}" if port == 80 else f"http://{hp}:{port}"), "browser.serverAddress", err
    return None, "", err


def _linux_interfaces() -> list[tuple[str, str]]:
    """(interface, IPv4 address) of every interface that has one, from the kernel (Linux's SIOCGIFADDR)."""
    import fcntl
    out = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                raw = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
            except OSError:   # no IPv4 address on this interface
                continue
            out.append((name, socket.inet_ntoa(raw[20:24])))
    return out


def _default_route_address() -> str | None:
    """The address this machine would send from to another network (the route to a TEST-NET address);
    connect() on a UDP socket sends nothing. None without a default route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
        except OSError:
            return None


def _usable(addr: str) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def machine_addresses() -> list[tuple[str, str]]:
    """This machine's IPv4 addresses other machines could reach, as (address, interface name or ""): the
    default route's first, then the rest by interface name, virtual bridges and tunnels last."""
    found: list[tuple[str, str]] = []
    if sys.platform.startswith("linux"):
        try:
            found = _linux_interfaces()
        except (OSError, ImportError):
            found = []
    if not found:
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
            found = [("", i[4][0]) for i in infos]
        except OSError:
            found = []
    default = _default_route_address()
    if default and default not in {a for _, a in found}:
        found.append(("", default))
    seen: set[str] = set()
    rows = []
    for name, addr in found:
        if addr in seen or not _usable(addr):
            continue
        seen.add(addr)
        rows.append((addr, name))
    rows.sort(key=lambda r: (r[0] != default, r[1].startswith(_VIRTUAL), r[1], r[0]))
    return rows


def bound_addresses(bind: str | None, machine: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """Of ``machine``'s addresses, the ones a server listening on ``bind`` answers at: all for the wildcard
    (None, "", 0.0.0.0, ::), none for a loopback address, the one address otherwise. None: a Unix socket."""
    b = (bind or "").strip()
    if b.startswith("unix://"):
        return None
    if b in ("", "0.0.0.0", "::"):
        return list(machine)
    if is_loopback(b):
        return []
    named = [m for m in machine if m[0] == b]
    return named or [(b, "")]


_SERVER = object()   # class_link's default: the running server's setting


def class_link(page_url: str, *, pick: str | None = None, bind=_SERVER, port: int | None = None,
               machine: list[tuple[str, str]] | None = None, configured: tuple | None = None, gettext=None) -> Link:
    """The origin of the class link for a page opened at ``page_url`` (the teacher's ``st.context.url``).

    ``pick``: the origin the teacher chose among the options (ignored when it is not one of them). ``bind``,
    ``port``, ``machine`` and ``configured`` default to the running server's (Streamlit's ``server.address``,
    ``server.port``, :func:`machine_addresses`, :func:`configured_origin`); tests pass their own.
    ``gettext(msgid, **params)`` writes the labels and the note in the page's language (default English)."""
    tr = gettext or (lambda msgid, **params: fill(msgid, params))
    parts = urlsplit(page_url or "")
    scheme = parts.scheme or "http"
    host = parts.hostname or ""
    page_origin = f"{scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    origin, where, err = configured_origin() if configured is None else configured
    if origin:
        return Link(origin, (Address(origin, tr(N_("the public address ({where})"), where=where)),),
                    loopback=is_loopback(host), note=None if not err else tr(err))
    loopback = is_loopback(host)
    if bind is _SERVER:
        bind = _config("server.address")
    if port is None:
        try:
            port = parts.port if (loopback and parts.port) else None
        except ValueError:
            port = None
        port = port or int(_config("server.port") or 8501)
    options: list[Address] = []
    if page_origin and not loopback:
        options.append(Address(page_origin, tr(N_("the address this page was opened at"))))
    reach = bound_addresses(bind, machine_addresses() if machine is None else machine)
    for addr, name in reach or []:
        o = f"{scheme}://[{addr}]:{port}" if ":" in addr else f"{scheme}://{addr}:{port}"
        if o != page_origin:
            options.append(Address(o, tr(N_("this computer on {name}"), name=name) if name
                                   else tr(N_("this computer on the network"))))
    if not options:   # nothing another machine can open: the page's own origin, said plainly
        where_ = page_origin or f"{scheme}://localhost:{port}"
        if reach == [] and (bind or "").strip() not in ("", "0.0.0.0", "::") and is_loopback(bind):
            why = tr(N_("This app listens on {bind} only, so the link works only on this computer. Start it with "
                        "`--server.address 0.0.0.0` (and connect this computer to the room's network or start a "
                        "hotspot), or set `NBLAB_PUBLIC_URL` to the address students use."), bind=_code(bind))
        else:
            why = tr(N_("This computer has no address on a network right now (no Wi-Fi, cable or hotspot): the link "
                        "works only on this computer. Connect to the room's network or start a hotspot, then open "
                        "this dialog again, or set `NBLAB_PUBLIC_URL` to the address students use."))
        return Link(where_, (Address(where_, tr(N_("this computer only"))),), loopback=loopback, reachable=False,
                    note=(tr(err) + " " if err else "") + why)
    chosen = next((o for o in options if o.origin == pick), options[0])
    note = None
    if loopback:
        note = tr(N_("You opened this app at {host}: a link with that address works only on this computer. The "
                     "link here uses this computer's address on the network instead, which students on the same "
                     "network (Wi-Fi, cable or this computer's hotspot) can open."), host=_code(host))
    if err:
        note = tr(err) + (" " + note if note else "")
    return Link(chosen.origin, tuple(options), loopback=loopback, note=note)
