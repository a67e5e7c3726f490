"""Password scrambles of the authentication plugins, both sides: what a client sends for a
password and the nonce the server gave (:func:`native_scramble`, :func:`sha2_scramble`), and
the server's check of it (:func:`native_check`, :func:`sha2_check`), plus the nonce itself
(:func:`new_nonce`). caching_sha2_password's full authentication over plain TCP, server side:
the RSA key pair (:func:`new_rsa_key`, :func:`load_rsa_key`, :func:`public_key_pem`) and the
password out of the client's RSA-OAEP(SHA-1) message (:func:`rsa_oaep_decrypt`,
:func:`xor_nonce`). No I/O: the packets that carry them are declared in :mod:`.connection`."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .connection import SCRAMBLE_LENGTH

NATIVE = "mysql_native_password"
CACHING_SHA2 = "caching_sha2_password"

# caching_sha2_password's one-byte messages (in AuthMoreData from the server; the request alone
# in a packet from the client)
SHA2_REQUEST_PUBLIC_KEY = b"\x02"      # client: send me your RSA public key
SHA2_FAST_AUTH_SUCCESS = b"\x03"       # server: the scramble matched the cached hash
SHA2_PERFORM_FULL_AUTH = b"\x04"       # server: not cached (or no match): send the password
RSA_KEY_BITS = 2048


def new_nonce() -> bytes:
    """A fresh 20-byte nonce of printable bytes without NUL (as servers send them)."""
    return bytes(33 + secrets.randbelow(94) for _ in range(SCRAMBLE_LENGTH))


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def _digest(algorithm: str, *parts: bytes) -> bytes:
    h = hashlib.new(algorithm)
    for p in parts:
        h.update(p)
    return h.digest()


def _sha1(*parts: bytes) -> bytes:
    return _digest("sha1", *parts)


def _sha256(*parts: bytes) -> bytes:
    return _digest("sha256", *parts)


def native_scramble(password: bytes, nonce: bytes) -> bytes:
    """mysql_native_password: SHA1(password) XOR SHA1(nonce + SHA1(SHA1(password))); empty
    for an empty password."""
    if not password:
        return b""
    stage1 = _sha1(password)
    return _xor(stage1, _sha1(nonce[:SCRAMBLE_LENGTH], _sha1(stage1)))


def native_check(response: bytes, nonce: bytes, password: bytes) -> bool:
    """Whether a client's mysql_native_password response proves it knows ``password``."""
    if not password:
        return not response
    if len(response) != 20:
        return False
    stored = _sha1(_sha1(password))
    stage1 = _xor(response, _sha1(nonce[:SCRAMBLE_LENGTH], stored))
    return hmac.compare_digest(_sha1(stage1), stored)


def sha2_scramble(password: bytes, nonce: bytes) -> bytes:
    """caching_sha2_password's fast-path response: SHA256(password) XOR
    SHA256(SHA256(SHA256(password)) + nonce); empty for an empty password."""
    if not password:
        return b""
    stage1 = _sha256(password)
    return _xor(stage1, _sha256(_sha256(stage1), nonce[:SCRAMBLE_LENGTH]))


def sha2_cached(password: bytes) -> bytes:
    """What a caching_sha2_password server caches for a password: SHA256(SHA256(password))."""
    return _sha256(_sha256(password))


def sha2_matches(response: bytes, nonce: bytes, cached: bytes) -> bool:
    """Whether a caching_sha2_password fast-path response matches a server's cache entry
    (:func:`sha2_cached` of the password)."""
    if len(response) != 32:
        return False
    stage1 = _xor(response, _sha256(cached, nonce[:SCRAMBLE_LENGTH]))
    return hmac.compare_digest(_sha256(stage1), cached)


def sha2_check(response: bytes, nonce: bytes, password: bytes) -> bool:
    """Whether a caching_sha2_password fast-path response proves it knows ``password``."""
    if not password:
        return not response
    return sha2_matches(response, nonce, sha2_cached(password))


def xor_nonce(data: bytes, nonce: bytes) -> bytes:
    """``data`` XOR the nonce's 20 bytes repeated (how caching_sha2_password hides the password
    inside its RSA message; applied twice it gives ``data`` back)."""
    pad = nonce[:SCRAMBLE_LENGTH]
    return _xor(data, pad * (len(data) // len(pad) + 1))


def new_rsa_key():
    """A fresh RSA private key (2048 bits, as MySQL's auto-generated one)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    return rsa.generate_private_key(public_exponent=65537, key_size=RSA_KEY_BITS)


def load_rsa_key(pem: bytes):
    """The RSA private key of a PEM text (unencrypted); ValueError when it is not one."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"a {type(key).__name__.lstrip('_')}, not an RSA private key")
    return key


def public_key_pem(key) -> bytes:
    """The public half of an RSA private key, as the PEM text a server sends
    (SubjectPublicKeyInfo, "-----BEGIN PUBLIC KEY-----")."""
    from cryptography.hazmat.primitives import serialization
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def rsa_oaep_decrypt(key, message: bytes) -> bytes | None:
    """``message`` decrypted with the RSA private ``key``, OAEP padding with SHA-1 (MGF1 SHA-1
    too), as caching_sha2_password's clients encrypt; None when it does not decrypt (wrong
    length, another key, bad padding)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    if len(message) != key.key_size // 8:
        return None
    try:
        return key.decrypt(message, padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()),
                                                 algorithm=hashes.SHA1(), label=None))
    except ValueError:
        return None
