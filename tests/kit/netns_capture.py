"""Record the packets on one interface that go beyond a subnet (run inside a namespace by tests/kit/netns.py).

    python3 netns_capture.py <interface> <subnet> <output.jsonl>

A raw AF_PACKET socket on the interface sees every frame it sends and receives. Written, one JSON line each
(flushed at once): every IPv4 packet whose source or destination is outside ``subnet`` (protocol, addresses,
ports), every IPv6 packet that is not link-local neighbour discovery or multicast listener traffic, and every
frame that is neither IP nor ARP. ARP and link-local IPv6 housekeeping are the link's own and are left out.
The first line, ``{"ready": true}``, says the socket is open."""
from __future__ import annotations

import ipaddress
import json
import socket
import struct
import sys

ETH_P_ALL = 0x0003


def dns_name(msg: bytes) -> str:
    """The first question's name (and type) of a DNS query, as text."""
    out, i = [], 12
    while i < len(msg) and msg[i]:
        n = msg[i]
        out.append(msg[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    qtype = struct.unpack("!H", msg[i + 1:i + 3])[0] if i + 3 <= len(msg) else 0
    return ".".join(out) + f" (type {qtype})"


def describe(frame: bytes, net) -> dict | None:
    if len(frame) < 14:
        return None
    kind = struct.unpack("!H", frame[12:14])[0]
    body = frame[14:]
    if kind == 0x0806:   # ARP
        return None
    if kind == 0x0800 and len(body) >= 20:
        ihl = (body[0] & 0x0F) * 4
        proto = body[9]
        src, dst = socket.inet_ntoa(body[12:16]), socket.inet_ntoa(body[16:20])
        if ipaddress.ip_address(src) in net and ipaddress.ip_address(dst) in net:
            return None
        row = {"ip": 4, "proto": proto, "src": src, "dst": dst}
        if proto in (6, 17) and len(body) >= ihl + 4:
            row["sport"], row["dport"] = struct.unpack("!HH", body[ihl:ihl + 4])
            if proto == 17 and row["dport"] == 53:
                row["query"] = dns_name(body[ihl + 8:])
        return row
    if kind == 0x86DD and len(body) >= 40:
        nxt = body[6]
        src = ipaddress.ip_address(body[8:24])
        dst = ipaddress.ip_address(body[24:40])
        if (src.is_link_local or src.is_unspecified) and (dst.is_link_local or dst.is_multicast):
            return None   # neighbour / router discovery, multicast listener reports: the link's own
        row = {"ip": 6, "proto": nxt, "src": str(src), "dst": str(dst)}
        if nxt in (6, 17) and len(body) >= 44:
            row["sport"], row["dport"] = struct.unpack("!HH", body[40:44])
        return row
    return {"ethertype": kind}


def main(dev: str, subnet: str, out: str) -> None:
    net = ipaddress.ip_network(subnet)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((dev, 0))
    with open(out, "a") as f:
        f.write(json.dumps({"ready": True}) + "\n")
        f.flush()
        while True:
            frame = s.recv(65535)
            row = describe(frame, net)
            if row is not None:
                f.write(json.dumps(row) + "\n")
                f.flush()


if __name__ == "__main__":
    main(*sys.argv[1:4])
