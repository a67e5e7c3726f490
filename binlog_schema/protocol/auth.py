"""Password scrambles of the authentication plugins, both sides: what a client sends for a
password and the nonce the server gave (:func:`native_scramble`, :func:`sha2_scramble`), and
the server's check of it (:func:`native_check`, :func:`sha2_check`), plus the nonce itself
(:func:`new_nonce`). No I/O: the packets that carry them are declared in :mod:`.connection`."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .connection import SCRAMBLE_LENGTH

NATIVE = "mysql_native_password"
CACHING_SHA2 = "caching_sha2_password"


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


def sha2_check(response: bytes, nonce: bytes, password: bytes) -> bool:
    """Whether a caching_sha2_password fast-path response proves it knows ``password`` (the
    server's cache holds SHA256(SHA256(password)))."""
    if not password:
        return not response
    if len(response) != 32:
        return False
    cached = _sha256(_sha256(password))
    stage1 = _xor(response, _sha256(cached, nonce[:SCRAMBLE_LENGTH]))
    return hmac.compare_digest(_sha256(stage1), cached)
