"""Test TLS files made with ``cryptography``: a CA (:func:`make_ca`) and a server certificate
it signs for 127.0.0.1 and localhost (:func:`make_server_cert`), as PEM files in a folder.
EC P-256 keys (quick to make; TLS only: caching_sha2_password's key is RSA, made apart)."""

from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import pathlib


@dataclasses.dataclass
class Issued:
    cert: pathlib.Path      # PEM certificate
    key: pathlib.Path       # PEM private key (unencrypted)
    private: object         # the key object
    certificate: object     # the x509.Certificate


def _write(folder: pathlib.Path, name: str, private, certificate) -> Issued:
    from cryptography.hazmat.primitives import serialization
    cert, key = folder / f"{name}-cert.pem", folder / f"{name}-key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return Issued(cert, key, private, certificate)


def _name(common_name: str):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(subject, issuer, public_key):
    from cryptography import x509
    now = datetime.datetime.now(datetime.timezone.utc)
    return (x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2)))


def make_ca(folder: pathlib.Path, name: str) -> Issued:
    """A self-signed CA certificate and its key: ``folder/NAME-cert.pem``, ``NAME-key.pem``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    private = ec.generate_private_key(ec.SECP256R1())
    certificate = (_builder(_name(f"{name} test CA"), _name(f"{name} test CA"),
                            private.public_key())
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
                   .add_extension(x509.KeyUsage(
                       digital_signature=True, content_commitment=False,
                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                       key_cert_sign=True, crl_sign=True, encipher_only=False,
                       decipher_only=False), True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(
                       private.public_key()), False)
                   .sign(private, hashes.SHA256()))
    return _write(folder, name, private, certificate)


def make_server_cert(folder: pathlib.Path, ca: Issued, name: str) -> Issued:
    """A server certificate signed by ``ca`` for IP 127.0.0.1 and DNS localhost."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID
    private = ec.generate_private_key(ec.SECP256R1())
    certificate = (_builder(_name("127.0.0.1"), ca.certificate.subject, private.public_key())
                   .add_extension(x509.SubjectAlternativeName([
                       x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                       x509.DNSName("localhost")]), False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                                  False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                       ca.private.public_key()), False)
                   .sign(ca.private, hashes.SHA256()))
    return _write(folder, name, private, certificate)
