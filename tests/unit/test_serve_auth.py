"""caching_sha2_password's full authentication helpers (binlog_schema.wire.protocol.auth) against
PyMySQL's client side of them, and serve's TLS/RSA key files (binlog_schema.wire.replication.
server_auth; ``serve``'s one-line refusals of bad files)."""

from __future__ import annotations

import subprocess
import sys

import construct as c
import pytest

from binlog_schema.wire.protocol import auth, connection
from binlog_schema.wire.replication import server_auth

from ..conftest import ROOT
from ..tls_certs import make_ca, make_server_cert

pytest.importorskip("cryptography")
pymysql_auth = pytest.importorskip("pymysql._auth")

PASSWORDS = [b"pw", "s3cret pw ✓ longer than the twenty-byte nonce".encode(), b"x" * 200]


@pytest.fixture(scope="module")
def rsa_key():
    return auth.new_rsa_key()


def _password_of(message: bytes, key, nonce: bytes):
    """What serve's full authentication over plain TCP makes of a client's RSA message."""
    plain = auth.rsa_oaep_decrypt(key, message)
    if plain is None:
        return None
    try:
        return connection.ClearPassword.parse(auth.xor_nonce(plain, nonce)).password
    except Exception:  # noqa: BLE001 - no NUL in it: no password (serve refuses it)
        return None


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_password_pymysql_encrypts_decrypts_with_ours(rsa_key, password):
    nonce = auth.new_nonce()
    pem = auth.public_key_pem(rsa_key)
    assert pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    message = pymysql_auth.sha2_rsa_encrypt(password, nonce, pem)
    assert len(message) == auth.RSA_KEY_BITS // 8
    assert _password_of(message, rsa_key, nonce) == password
    # with another nonce it is not the password (bound to the connection): here, every byte
    # one bit off, its NUL too: no password at all
    other = bytes(b ^ 1 for b in nonce)
    assert auth.xor_nonce(auth.rsa_oaep_decrypt(rsa_key, message), other) == \
        bytes(b ^ 1 for b in password + b"\0")
    assert _password_of(message, rsa_key, other) is None


def test_what_does_not_decrypt_is_none(rsa_key):
    nonce = auth.new_nonce()
    message = pymysql_auth.sha2_rsa_encrypt(b"pw", nonce, auth.public_key_pem(rsa_key))
    other = auth.new_rsa_key()
    assert auth.rsa_oaep_decrypt(other, message) is None           # another key
    assert auth.rsa_oaep_decrypt(rsa_key, message[:-1]) is None     # a byte short
    assert auth.rsa_oaep_decrypt(rsa_key, b"\x02") is None          # the key request
    flipped = bytes([message[0] ^ 1]) + message[1:]
    assert auth.rsa_oaep_decrypt(rsa_key, flipped) is None          # tampered


def test_xor_nonce_is_pymysqls_and_its_own_inverse():
    nonce = auth.new_nonce()
    for data in (b"", b"a", bytes(range(20)), bytes(range(256)) * 2):
        hidden = auth.xor_nonce(data, nonce)
        assert hidden == pymysql_auth._xor_password(data, nonce)
        assert auth.xor_nonce(hidden, nonce) == data
    assert len(nonce) == 20 and auth.xor_nonce(bytes(40), nonce) == nonce + nonce


def test_the_fast_path_matches_the_cache_entry():
    nonce = auth.new_nonce()
    token = pymysql_auth.scramble_caching_sha2(b"pw", nonce)
    assert auth.sha2_matches(token, nonce, auth.sha2_cached(b"pw"))
    assert not auth.sha2_matches(token, nonce, auth.sha2_cached(b"pv"))
    assert not auth.sha2_matches(token, auth.new_nonce(), auth.sha2_cached(b"pw"))
    assert not auth.sha2_matches(token[:-1], nonce, auth.sha2_cached(b"pw"))
    assert auth.sha2_check(token, nonce, b"pw") and not auth.sha2_check(token, nonce, b"p")


def test_rsa_keys_load_and_others_are_refused(rsa_key):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    for fmt in (serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL):
        pem = rsa_key.private_bytes(serialization.Encoding.PEM, fmt,
                                    serialization.NoEncryption())
        assert auth.public_key_pem(auth.load_rsa_key(pem)) == auth.public_key_pem(rsa_key)
    ec_pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    with pytest.raises(ValueError, match="not an RSA private key"):
        auth.load_rsa_key(ec_pem)
    with pytest.raises(ValueError):
        auth.load_rsa_key(b"-----BEGIN PRIVATE KEY-----\nnot base64\n")


def test_clear_password_packet():
    assert connection.ClearPassword.parse(b"pw\0").password == b"pw"
    assert connection.ClearPassword.build({"password": b"p w"}) == b"p w\0"
    with pytest.raises(c.StreamError):
        connection.ClearPassword.parse(b"no terminator")


# ------------------------------------------------------------------ serve's TLS files


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    ca = make_ca(folder, "ca")
    return folder, ca, make_server_cert(folder, ca, "server"), make_server_cert(folder, ca,
                                                                                 "other")


def test_tls_context_of_good_and_bad_files(certs):
    folder, ca, server, other = certs
    assert server_auth.tls_context(str(server.cert), str(server.key)) is not None
    cases = [
        ((folder / "missing.pem", server.key), f"{folder / 'missing.pem'}: No such file"),
        ((server.key, server.key), f"{server.key}: not a PEM certificate"),
        ((server.cert, server.cert), f"{server.cert}: not an unencrypted PEM private key"),
        ((server.cert, other.key), f"{other.key}: does not go with the certificate"),
    ]
    for (cert, key), message in cases:
        with pytest.raises(server_auth.ConfigError) as e:
            server_auth.tls_context(str(cert), str(key))
        assert str(e.value).startswith(message), str(e.value)


def _serve(*options, folder):
    return subprocess.run([sys.executable, "-m", "binlog_schema", "serve", str(folder),
                           "--port", "0", *options], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def test_serve_refuses_bad_files_in_one_line(certs, tmp_path):
    folder, ca, server, other = certs
    for options, name in (
            (["--ssl-cert", str(folder / "nope.pem"), "--ssl-key", str(server.key)],
             folder / "nope.pem"),
            (["--ssl-cert", str(server.cert), "--ssl-key", str(other.key)], other.key),
            (["--ssl-cert", str(server.key), "--ssl-key", str(server.key)], server.key),
            (["--auth", "caching_sha2_password", "--rsa-key", str(server.key)], server.key)):
        out = _serve(*options, folder=tmp_path)
        assert out.returncode == 1, out.stderr
        assert out.stderr.startswith(f"serve: {name}: ") and out.stderr.count("\n") == 1, \
            out.stderr
    out = _serve("--require-ssl", folder=tmp_path)
    assert out.returncode == 2 and "--ssl-cert" in out.stderr and "Traceback" not in out.stderr
