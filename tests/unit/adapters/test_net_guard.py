"""Which addresses the image fetcher may reach."""

from __future__ import annotations

import ipaddress

import pytest

from visual_degrees.adapters.live.net_guard import AddressGuard, blocked_reason, parse_networks

BLOCKED = {
    "127.0.0.1": "loopback",
    "127.255.255.254": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local",  # cloud metadata
    "100.64.0.1": "CGNAT",
    "0.0.0.0": "unspecified",
    "224.0.0.251": "multicast",
    "239.255.255.250": "multicast",
    "240.0.0.1": "reserved",
    "255.255.255.255": "reserved",
    "192.0.2.10": "documentation",
    "198.51.100.7": "documentation",
    "203.0.113.9": "documentation",
    "198.18.0.1": "benchmarking",
    "192.0.0.8": "IETF",
    "::1": "loopback",
    "::": "unspecified",
    "fe80::1": "link-local",
    "fec0::1": "site-local",
    "fc00::1": "unique local",
    "fd12:3456::1": "unique local",
    "ff02::1": "multicast",
    "::ffff:127.0.0.1": "IPv4-in-IPv6",
    "::ffff:169.254.169.254": "IPv4-in-IPv6",
    "64:ff9b::a00:1": "IPv4-in-IPv6",  # NAT64 wrapping 10.0.0.1
    "2002:7f00:1::": "6to4",
    "2001:db8::1": "documentation",
    "2001::1": "IETF",  # Teredo
    "::127.0.0.1": "reserved",  # deprecated IPv4-compatible form
}

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "151.101.1.69",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82b::200e",
    "64:ff9b::808:808",
]


@pytest.mark.parametrize(("address", "reason"), sorted(BLOCKED.items()))
def test_non_public_addresses_are_refused_with_their_reason(address: str, reason: str) -> None:
    # Given an address outside the public unicast space
    ip = ipaddress.ip_address(address)
    # When the default guard judges it
    refusal = AddressGuard().refusal(ip)
    # Then it is refused, naming the kind of range
    assert refusal is not None
    assert reason.lower() in refusal.lower()


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None
    assert AddressGuard().refusal(ipaddress.ip_address(address)) is None


def test_allowlist_relaxes_only_the_listed_networks() -> None:
    # Given a guard that allows the loopback /32 and one private /24
    guard = AddressGuard(allow=parse_networks(["127.0.0.1", "10.9.8.0/24"]))
    # Then those pass...
    assert guard.refusal(ipaddress.ip_address("127.0.0.1")) is None
    assert guard.refusal(ipaddress.ip_address("10.9.8.77")) is None
    # ...and their neighbours and every other private range are still refused
    assert guard.refusal(ipaddress.ip_address("127.0.0.2")) == "loopback"
    assert guard.refusal(ipaddress.ip_address("10.9.9.1")) == "private"
    assert guard.refusal(ipaddress.ip_address("169.254.169.254")) == "link-local"
    assert guard.refusal(ipaddress.ip_address("::1")) == "loopback"


def test_scoped_ipv6_addresses_are_refused_even_when_allowed() -> None:
    guard = AddressGuard(allow=parse_networks(["fe80::/10"]))
    assert guard.refusal(ipaddress.ip_address("fe80::1%eth0")) == "scoped IPv6 address"


def test_parse_networks_accepts_bare_hosts_and_rejects_garbage() -> None:
    assert parse_networks([" 192.168.0.0/16 ", "::1", ""]) == (
        ipaddress.ip_network("192.168.0.0/16"),
        ipaddress.ip_network("::1/128"),
    )
    with pytest.raises(ValueError):
        parse_networks(["not-a-network"])
