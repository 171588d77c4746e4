"""Which addresses the image fetcher may connect to: public unicast only, unless allow-listed.

Image URLs come from search results, i.e. from strangers. Without this check a result pointing at
169.254.169.254, localhost or an internal host would make us fetch (and hand to a recogniser)
whatever lives there. Python's `ipaddress.is_global` alone misses several ranges (multicast,
site-local, NAT64 and 6to4 wrappers around private IPv4), so the rules below are explicit.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# host, port -> every address the name resolves to (tests inject fake DNS answers here).
Resolver = Callable[[str, int], Sequence[str]]

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# IANA IPv4 special-purpose registry, plus multicast and the reserved block.
_BLOCKED_V4: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_V4("0.0.0.0/8"), "unspecified"),
    (_V4("10.0.0.0/8"), "private"),
    (_V4("100.64.0.0/10"), "shared address space (CGNAT)"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("169.254.0.0/16"), "link-local"),
    (_V4("172.16.0.0/12"), "private"),
    (_V4("192.0.0.0/24"), "IETF protocol assignment"),
    (_V4("192.0.2.0/24"), "documentation"),
    (_V4("192.88.99.0/24"), "6to4 relay anycast"),
    (_V4("192.168.0.0/16"), "private"),
    (_V4("198.18.0.0/15"), "benchmarking"),
    (_V4("198.51.100.0/24"), "documentation"),
    (_V4("203.0.113.0/24"), "documentation"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("240.0.0.0/4"), "reserved"),  # includes 255.255.255.255 (broadcast)
)

# IPv6 ranges inside global unicast (2000::/3) that are still not public hosts.
_BLOCKED_V6: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("2001::/23"), "IETF protocol assignment"),  # Teredo, benchmarking, ORCHID...
    (_V6("2001:db8::/32"), "documentation"),
    (_V6("2002::/16"), "6to4"),  # wraps an IPv4 address we would have to trust blindly
    (_V6("3fff::/20"), "documentation"),
)
_GLOBAL_UNICAST_V6 = _V6("2000::/3")
_NAT64 = (_V6("64:ff9b::/96"), _V6("64:ff9b:1::/48"))


def parse_networks(values: Iterable[str | IPNetwork]) -> tuple[IPNetwork, ...]:
    """`["127.0.0.1/32", "10.1.0.0/16"]` -> networks; a bare address means a single host."""
    networks: list[IPNetwork] = []
    for value in values:
        if isinstance(value, ipaddress.IPv4Network | ipaddress.IPv6Network):
            networks.append(value)
            continue
        text = value.strip()
        if text:
            networks.append(ipaddress.ip_network(text, strict=False))
    return tuple(networks)


def blocked_reason(address: IPAddress) -> str | None:
    """Why `address` is not a public host, or None when it is."""
    if isinstance(address, ipaddress.IPv6Address):
        return _blocked_v6(address)
    return _blocked_v4(address)


def _blocked_v4(address: ipaddress.IPv4Address) -> str | None:
    for network, reason in _BLOCKED_V4:
        if address in network:
            return reason
    if not address.is_global:  # whatever the registry adds after this list was written
        return "not globally routable"
    return None


def _blocked_v6(address: ipaddress.IPv6Address) -> str | None:
    # An IPv6 literal can carry an IPv4 address; judge the IPv4 address it really reaches.
    embedded = address.ipv4_mapped or _nat64_embedded(address)
    if embedded is not None:
        reason = _blocked_v4(embedded)
        return f"IPv4-in-IPv6 ({reason})" if reason else None
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_multicast:
        return "multicast"
    if address.is_link_local:
        return "link-local"
    if address.is_site_local:
        return "site-local"
    if address in _V6("fc00::/7"):
        return "unique local (private)"
    if address not in _GLOBAL_UNICAST_V6:
        return "reserved"  # ::/8 (incl. IPv4-compatible ::a.b.c.d), 4000::/2 ...
    for network, reason in _BLOCKED_V6:
        if address in network:
            return reason
    return None


def _nat64_embedded(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if any(address in net for net in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


@dataclass(frozen=True)
class AddressGuard:
    """Public addresses pass; a blocked address passes only inside an explicitly allowed network."""

    allow: tuple[IPNetwork, ...] = ()

    def refusal(self, address: IPAddress) -> str | None:
        """None if we may connect to `address`, else the reason we may not."""
        if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
            return "scoped IPv6 address"
        for network in self.allow:
            if address.version == network.version and address in network:
                return None
        return blocked_reason(address)


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (A and AAAA), in its order, deduplicated."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: dict[str, None] = {}
    for info in infos:
        seen.setdefault(str(info[4][0]), None)
    return list(seen)
