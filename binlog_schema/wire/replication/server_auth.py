"""The connection phase of ``binlog-schema serve``, server side: the greeting (HandshakeV10),
TLS when the client asks for it (SslRequest, then the socket wrapped by :mod:`ssl`), the
HandshakeResponse41 and the check of the password by the plugin offered:

* mysql_native_password: the scramble checked against the password;
* caching_sha2_password, as a MySQL 8 server runs it: a cache per server (:class:`ServerAuth`),
  empty at start. A user in the cache whose scramble matches gets in by the fast path
  (AuthMoreData 0x03, then OK); otherwise the full authentication (AuthMoreData 0x04): over
  TLS the client sends the password in clear (NUL-terminated); over plain TCP it asks for the
  server's RSA public key (0x02; AuthMoreData with the PEM) and sends the password + NUL,
  XORed with the nonce, RSA-OAEP(SHA-1) encrypted. A full authentication that succeeds puts
  the user in the cache. An empty response is an empty password (OK or ERR at once).

Every packet goes through a declaration of :mod:`binlog_schema.wire.protocol.connection`; the
scrambles and the RSA message through :mod:`binlog_schema.wire.protocol.auth`."""

from __future__ import annotations

import collections
import functools
import hmac
import ssl
import threading

from ...format.event_codec import convert_error
from ...format.errors import BinlogError
from ..protocol import auth, connection as conn

ER_ACCESS_DENIED = 1045
SERVER_CAPABILITIES = [
    "LONG_PASSWORD", "FOUND_ROWS", "LONG_FLAG", "CONNECT_WITH_DB", "PROTOCOL_41",
    "TRANSACTIONS", "SECURE_CONNECTION", "MULTI_RESULTS", "PLUGIN_AUTH", "CONNECT_ATTRS",
    "PLUGIN_AUTH_LENENC_CLIENT_DATA", "DEPRECATE_EOF"]
VERSIONS = {"mariadb": "5.5.5-10.11.6-MariaDB-binlog-schema",   # (5.5.5-: as MariaDB 10 sends)
            "mysql": "8.0.36-binlog-schema"}
COLLATION_UTF8MB4 = 45
INSECURE = "Connections using insecure transport are prohibited while --require-ssl is on"


class PeerGone(Exception):
    """The client closed the connection (or sent what ends it)."""


class ConfigError(Exception):
    """A TLS certificate or key, or an RSA key, that cannot be used: ``FILE: reason``."""


def parse_packet(decl, payload: bytes, **context):
    """A client's packet parsed by its declaration; bad bytes raise the typed error."""
    try:
        return decl.parse(payload, **context)
    except Exception as e:  # noqa: BLE001 - every failure leaves as a BinlogError
        raise convert_error(e, None) from None


# ------------------------------------------------------------------ the server's side


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server TLS context of a PEM certificate (chain) and its unencrypted PEM key."""
    from cryptography import x509
    try:
        x509.load_pem_x509_certificates(_read(cert))
    except ValueError:
        raise ConfigError(f"{cert}: not a PEM certificate") from None
    from cryptography.hazmat.primitives import serialization
    try:
        serialization.load_pem_private_key(_read(key), password=None)
    except (ValueError, TypeError):   # (TypeError: an encrypted key)
        raise ConfigError(f"{key}: not an unencrypted PEM private key") from None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except ssl.SSLError as e:
        raise ConfigError(f"{key}: does not go with the certificate {cert} "
                          f"({e.reason or e})") from None
    return context


@functools.lru_cache(maxsize=1)
def _process_rsa_key():
    return auth.new_rsa_key()   # (once per process, as a server generates its own at start)


class ServerAuth:
    """What the connection phase of one server shares across clients: its TLS context, its
    RSA key (caching_sha2_password), its cache of users (user -> SHA256(SHA256(password))) and
    the counts of what happened (``counts``: ``tls`` handshakes; logins by the ``fast`` path, by
a full authentication ``full_rsa`` or ``full_tls``; ``public_key`` sent; ``denied``)."""

    def __init__(self, config):
        self.config = config
        self.tls = tls_context(config.ssl_cert, config.ssl_key) if config.ssl_cert else None
        self.rsa_key = None
        if config.rsa_key:
            try:
                self.rsa_key = auth.load_rsa_key(_read(config.rsa_key))
            except (ValueError, TypeError):
                raise ConfigError(f"{config.rsa_key}: not an unencrypted PEM RSA private "
                                  f"key") from None
        elif config.auth == auth.CACHING_SHA2:
            self.rsa_key = _process_rsa_key()
        self.public_pem = auth.public_key_pem(self.rsa_key) if self.rsa_key else b""
        self.cache: dict = {}
        self.counts = collections.Counter()
        self._lock = threading.Lock()

    def count(self, what: str):
        with self._lock:
            self.counts[what] += 1

    def cached(self, user: str):
        with self._lock:
            return self.cache.get(user)

    def remember(self, user: str, password: bytes):
        with self._lock:
            self.cache[user] = auth.sha2_cached(password)


# ------------------------------------------------------------------ one client


class _SocketReader:
    """``read(n)``: exactly ``n`` bytes of the socket (fewer only at its end) and no more: the
    client's first packet, which TLS bytes may follow at once (a buffered reader would take
    them)."""

    def __init__(self, sock):
        self.sock = sock

    def read(self, n: int) -> bytes:
        parts = []
        while n > 0:
            data = self.sock.recv(n)
            if not data:
                break
            parts.append(data)
            n -= len(data)
        return b"".join(parts)


def _start_tls(client, context: ssl.SSLContext):
    """The client's socket wrapped (server side) and its reader and writer made anew on it."""
    for f in (client.reader, client.writer):
        f.close()   # (nothing in them: the greeting was flushed, the SslRequest read exactly)
    try:
        client.sock = context.wrap_socket(client.sock, server_side=True)
    except (ssl.SSLError, OSError) as e:
        raise PeerGone(f"TLS handshake: {e}") from None
    client.reader = client.sock.makefile("rb")
    client.writer = client.sock.makefile("wb")


def _greet(client, nonce: bytes, tls: bool):
    caps = conn.CAPABILITIES
    offered = SERVER_CAPABILITIES + (["SSL"] if tls else [])
    client.send(conn.HandshakeV10, {
        "server_version": VERSIONS[client.config.flavor], "connection_id": client.conn_id,
        "auth_data_1": nonce[:8],
        "capabilities_low": [n for n in offered if caps[n] < 0x10000],
        "collation": COLLATION_UTF8MB4, "status": ["AUTOCOMMIT"],
        "capabilities_high": [n for n in offered if caps[n] >= 0x10000],
        "reserved": bytes(6), "extended_capabilities": 0,
        "auth_data_2": nonce[8:] + b"\0", "auth_plugin": client.config.auth})


def _flags(value) -> set:
    return {n for n in value.capabilities if isinstance(n, str)}


def handshake(client) -> bool:
    """The connection phase of ``client`` (a :class:`.server_connection.Connection`): True
    when it ends with OK (the client is in), False when an ERR was sent."""
    shared: ServerAuth = client.server.auth
    nonce = auth.new_nonce()
    _greet(client, nonce, shared.tls is not None)
    payload = client.read(_SocketReader(client.sock))
    try:
        asks_tls = "SSL" in _flags(parse_packet(conn.SslRequest, payload))
        if asks_tls and shared.tls is None:
            client.err(ER_ACCESS_DENIED, "TLS asked for, but this server has no certificate "
                                         "(serve --ssl-cert/--ssl-key)", "08S01")
            return False
        if asks_tls:
            _start_tls(client, shared.tls)
            shared.count("tls")
            payload = client.read()
        response = parse_packet(conn.HandshakeResponse41, payload)
    except BinlogError as e:
        client.err(ER_ACCESS_DENIED, f"Bad handshake: {e}", "08S01")
        return False
    if client.config.require_ssl and not asks_tls:
        client.err(ER_ACCESS_DENIED, INSECURE, "28000")
        return False
    client.capabilities = _flags(response) & set(SERVER_CAPABILITIES)
    token = response.auth_response if isinstance(response.auth_response, bytes) else \
        str(response.auth_response or "").encode()
    plugin = client.config.auth
    if response.auth_plugin not in (None, plugin):
        client.send(conn.AuthSwitchRequest, {"auth_plugin": plugin, "auth_data": nonce + b"\0"})
        token = _auth_data(client)
    if plugin == auth.CACHING_SHA2:
        ok = _caching_sha2(client, response.user, token, nonce)
    else:
        ok = client.config.user is None or (response.user == client.config.user and
                                            auth.native_check(token, nonce,
                                                              client.config.password))
    if not ok:
        shared.count("denied")
        client.err(ER_ACCESS_DENIED, f"Access denied for user '{response.user}'", "28000")
        return False
    client.attributes = {a.key: a.value for a in response.attributes or ()}
    client.ok()
    return True


def _auth_data(client) -> bytes:
    return parse_packet(conn.AuthResponse, client.read()).auth_data


def _caching_sha2(client, user: str, token: bytes, nonce: bytes) -> bool:
    """caching_sha2_password's exchange after the client's scramble ``token``: True when the
    client is in (the OK still to send)."""
    shared: ServerAuth = client.server.auth
    config = client.config
    if not token:   # an empty password: no more data, straight to OK or ERR
        return config.user is None or (user == config.user and not config.password)
    if config.user is None:   # every user accepted: nothing to check
        client.send(conn.AuthMoreData, {"auth_data": auth.SHA2_FAST_AUTH_SUCCESS})
        return True
    if user != config.user or not config.password:
        return False
    cached = shared.cached(user)
    if cached is not None and auth.sha2_matches(token, nonce, cached):
        client.send(conn.AuthMoreData, {"auth_data": auth.SHA2_FAST_AUTH_SUCCESS})
        shared.count("fast")
        return True
    client.send(conn.AuthMoreData, {"auth_data": auth.SHA2_PERFORM_FULL_AUTH})
    data = _auth_data(client)
    if isinstance(client.sock, ssl.SSLSocket):
        how, plain = "full_tls", data
    else:
        how = "full_rsa"
        if data == auth.SHA2_REQUEST_PUBLIC_KEY:
            client.send(conn.AuthMoreData, {"auth_data": shared.public_pem})
            shared.count("public_key")
            data = _auth_data(client)
        plain = auth.rsa_oaep_decrypt(shared.rsa_key, data)
        if plain is None:
            return False
        plain = auth.xor_nonce(plain, nonce)
    try:
        password = parse_packet(conn.ClearPassword, plain).password
    except BinlogError:
        return False
    if not hmac.compare_digest(password, config.password):
        return False
    shared.remember(user, password)
    shared.count(how)
    return True
