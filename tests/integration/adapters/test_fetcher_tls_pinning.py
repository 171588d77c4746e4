"""Connecting to the checked address must not weaken TLS: the certificate is still verified
against the URL's host name (sent as SNI), not against the IP we connect to."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.integration.adapters.drip_server import DripServer, reply
from tests.support.fake_wire_servers import StaticImageServer, photo_bytes
from visual_degrees.adapters.live.image_convert import ImageRejected
from visual_degrees.adapters.live.image_fetcher import FetchLimits, SafeImageFetcher
from visual_degrees.adapters.live.net_guard import AddressGuard, parse_networks

NAME = "photos.example"

# How long the peer may take to notice the client left: seconds on a loaded 2-core machine, and
# still far below the minute its drip lasts, so a client that never hung up fails the test.
LEFT_WITHIN = 30


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    signer: ec.EllipticCurvePrivateKey,
    *,
    ca: bool,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
    return builder.sign(signer, hashes.SHA256())


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context for photos.example, client context trusting only our test CA)."""
    folder: Path = tmp_path_factory.mktemp("pki")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "visual-degrees test CA")])
    ca_cert = _cert("visual-degrees test CA", ca_key, ca_name, ca_key, ca=True)
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = _cert(NAME, leaf_key, ca_name, ca_key, ca=False)
    (folder / "leaf.pem").write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    (folder / "leaf.key").write_bytes(
        leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(folder / "leaf.pem", folder / "leaf.key")
    client = ssl.create_default_context(cadata=ca_cert.public_bytes(serialization.Encoding.PEM).decode())
    return server, client


@pytest.fixture
def https_server(pki: tuple[ssl.SSLContext, ssl.SSLContext]) -> Iterator[StaticImageServer]:
    with StaticImageServer(tls=pki[0]) as server:
        yield server


def fetcher(client_tls: ssl.SSLContext, limits: FetchLimits | None = None) -> SafeImageFetcher:
    # Fake DNS: every name is the local server, which the allowlist admits for this test only.
    client = httpx.Client(verify=client_tls, trust_env=False, timeout=5.0)
    return SafeImageFetcher(
        limits,
        guard=AddressGuard(allow=parse_networks(["127.0.0.1/32"])),
        resolver=lambda _host, _port: ["127.0.0.1"],
        client=client,
    )


def test_the_certificate_is_verified_for_the_url_host(
    https_server: StaticImageServer, pki: tuple[ssl.SSLContext, ssl.SSLContext]
) -> None:
    # Given an HTTPS server whose certificate names photos.example
    data = photo_bytes("tls")
    https_server.add("/a.jpg", data)
    # When fetched by that name (connecting to the checked 127.0.0.1)
    fetched = fetcher(pki[1]).fetch(f"https://{NAME}:{https_server.port}/a.jpg")
    # Then TLS verified the name and the image arrived
    assert fetched.data == data


def test_a_certificate_for_another_name_is_refused(
    https_server: StaticImageServer, pki: tuple[ssl.SSLContext, ssl.SSLContext]
) -> None:
    https_server.add("/a.jpg", photo_bytes("tls"))
    with pytest.raises(ImageRejected) as caught:
        fetcher(pki[1]).fetch(f"https://imposter.example:{https_server.port}/a.jpg")
    assert caught.value.reason == "unreachable"
    assert https_server.requests == []  # the handshake failed: no request was ever sent


def test_an_untrusted_certificate_is_refused(https_server: StaticImageServer) -> None:
    https_server.add("/a.jpg", photo_bytes("tls"))
    with pytest.raises(ImageRejected):
        fetcher(ssl.create_default_context()).fetch(f"https://{NAME}:{https_server.port}/a.jpg")
    assert https_server.requests == []


def test_dripping_tls_headers_are_cut_at_the_total_deadline(
    pki: tuple[ssl.SSLContext, ssl.SSLContext],
) -> None:
    # Given an HTTPS peer dripping its headers a byte every 10 ms (6 s of them)
    head, body = reply(photo_bytes("tls-drip"), padding=600)
    with DripServer(head, body, drip="headers", tls=pki[0]) as server:
        # When fetched by name with a 1.5 s deadline (the handshake must fit in it, on a loaded
        # machine too) and a 2 s read timeout
        limits = FetchLimits(read_timeout=2.0, total_timeout=1.5)
        with pytest.raises(ImageRejected) as caught:
            fetcher(pki[1], limits).fetch(f"https://{NAME}:{server.port}/a.jpg")
        # Then the deadline shut the TLS connection mid-headers
        assert caught.value.reason == "timeout"
        assert server.client_left.wait(timeout=LEFT_WITHIN)
        assert 0 < server.sent < len(head)
