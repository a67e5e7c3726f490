"""``binlog-schema serve`` with TLS and caching_sha2_password's full authentication, against
real peers on 127.0.0.1 (a test CA and server certificate made in a fixture):

* ``binlog-schema stream --ssl-ca CA`` against ``serve --ssl-cert --ssl-key --require-ssl``
  over copies of corpus files: what it streams equals ``decode --rows`` of the files; a
  stream trusting another CA is refused; a plain client is refused by --require-ssl;
* PyMySQL against ``serve --auth caching_sha2_password``: a user's first login is a full
  authentication (over plain TCP: the RSA public key asked for and the password encrypted;
  over TLS: the password in clear), the next ones take the fast path, a wrong password is
  refused either way (the server's counts say which path ran);
* a private MariaDB replica with MASTER_SSL=1 and MASTER_SSL_CA replicates from ``serve
  --require-ssl`` (the writer's binlog files) until its tables equal the writer's; and, its
  client given libmariadb's caching_sha2_password plugin, logs in to ``--auth
  caching_sha2_password`` by a full authentication over TLS, then by the fast path.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import time

import pytest

from binlog_schema.wire.protocol import auth
from ..conftest import ROOT, corpus_file, unavailable
from ..tls_certs import make_ca, make_server_cert
from . import flashback_workload as fw
from .test_serve_server import (PASSWORD, USER, Serve, _copy_binlogs, _replicate, _start,
                                _wait_caught_up, _workload, replica, writer)
from .test_stream_server import CLI, _decoded, _lines

pytestmark = pytest.mark.server

__all__ = ["replica", "writer"]   # (fixtures of the serve tier, used here as they are)


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """``(ca, server, other_ca)``: the CA serve's certificate is signed by, that certificate,
    and a CA that signed nothing of serve's."""
    folder = tmp_path_factory.mktemp("tls")
    ca = make_ca(folder, "ca")
    return ca, make_server_cert(folder, ca, "server"), make_ca(folder, "other")


def _tls_options(tls, *more):
    _ca, server, _other = tls
    return ("--ssl-cert", str(server.cert), "--ssl-key", str(server.key), *more)


def _served(tmp_path, names):
    folder = tmp_path / "served"
    folder.mkdir()
    for name, as_name in names:
        shutil.copyfile(corpus_file(name), folder / as_name)
    return folder


# (corpus files: two MariaDB files joined by a ROTATE; a MySQL file with rows events)
CORPUS_SETS = {
    "mariadb": ([("mariadb-poc/domain_id_1/mariadb-repl-bin.000001", "mariadb-repl-bin.000001"),
                 ("mariadb-poc/domain_id_1/mariadb-repl-bin.000002", "mariadb-repl-bin.000002")],
                ()),
    "mysql": ([("mysql-binlog-connector-java/mysql-bin.checksum-crc32", "mysql-bin.000001")],
              ("--flavor", "mysql")),
}


def _stream(serve, *options):
    return subprocess.run([*CLI, "stream", "--port", str(serve.port), "--user", USER,
                           "--password-file", str(serve.password_file), "--rows", *options],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def _serve(folder, *options):
    s = Serve(folder, *options)
    s.password_file = folder.parent / "serve-password"   # (where Serve wrote it)
    return s


@pytest.mark.parametrize("which", sorted(CORPUS_SETS))
def test_stream_over_tls_equals_decode(tls, tmp_path, which):
    names, flavor = CORPUS_SETS[which]
    folder = _served(tmp_path, names)
    ca, _server, other = tls
    serve = _serve(folder, *_tls_options(tls, "--require-ssl", *flavor))
    try:
        out = _stream(serve, "--ssl-ca", str(ca.cert))
        assert out.returncode == 0, out.stderr
        streamed = _lines(out.stdout)
        want = _decoded(sorted(folder.iterdir()))
        assert streamed == want and len({d["file"] for d in want}) == len(names)
        # a stream that trusts another CA: refused, one line, status 1
        out = _stream(serve, "--ssl-ca", str(other.cert))
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert "certificate verify failed" in out.stderr, out.stderr
        # and serve goes on serving
        assert _lines(_stream(serve, "--ssl-ca", str(ca.cert)).stdout) == want
        assert serve.proc.poll() is None
    finally:
        serve.stop()


def _pymysql(port, password=PASSWORD, **ssl):
    """A PyMySQL connection (plain TCP unless ``ssl`` options are given: PyMySQL would
    otherwise take TLS when offered) that lists the served files; ``(connection, files)``."""
    import pymysql
    if not ssl:
        ssl = {"ssl_disabled": True}
    conn = pymysql.connect(host="127.0.0.1", port=port, user=USER, password=password,
                           connect_timeout=10, **ssl)
    cur = conn.cursor()
    cur.execute("SHOW BINARY LOGS")
    files = [row[0] for row in cur.fetchall()]
    conn.close()
    return conn, files


def test_require_ssl_refuses_a_plain_client(tls, tmp_path):
    import pymysql
    folder = _served(tmp_path, CORPUS_SETS["mariadb"][0])
    ca = tls[0]
    serve = _serve(folder, *_tls_options(tls, "--require-ssl"))
    try:
        with pytest.raises(pymysql.err.OperationalError) as e:
            _pymysql(serve.port)
        assert e.value.args[0] == 1045 and "insecure transport" in e.value.args[1]
        conn, files = _pymysql(serve.port, ssl_ca=str(ca.cert), ssl_verify_cert=True)
        assert files == sorted(p.name for p in folder.iterdir())
    finally:
        serve.stop()
    # without --require-ssl the same plain client gets in
    serve = _serve(folder, *_tls_options(tls))
    try:
        assert _pymysql(serve.port)[1] == sorted(p.name for p in folder.iterdir())
    finally:
        serve.stop()


# ------------------------------------------------------------------ caching_sha2_password


@pytest.fixture
def binlog_folder(tmp_path):
    from binlog_schema.synthetic.randomspec import random_spec
    from binlog_schema.synthetic.writer import generate
    folder = tmp_path / "served"
    folder.mkdir()
    generate(random_spec(seed=5, tables=1, transactions=3, flavor="mariadb-10.11"),
             str(folder / "mariadb-bin.000001"))
    return folder


def _sha2_server(folder, tls=None):
    """``serve --auth caching_sha2_password`` in this process (its counts at hand)."""
    from binlog_schema.wire.replication.server import BinlogServer, ServerConfig
    cert = {} if tls is None else {"ssl_cert": str(tls[1].cert), "ssl_key": str(tls[1].key)}
    return BinlogServer(ServerConfig(folder=str(folder), user=USER, password=PASSWORD.encode(),
                                     server_id=7, auth=auth.CACHING_SHA2, **cert)).start()


def _refused(port, password, **ssl):
    import pymysql
    with pytest.raises(pymysql.err.OperationalError) as e:
        _pymysql(port, password, **ssl)
    assert e.value.args[0] == 1045, e.value.args


def test_caching_sha2_full_auth_by_rsa_then_fast_path(binlog_folder):
    server = _sha2_server(binlog_folder)
    counts = server.auth_counts
    pem = auth.public_key_pem(server.auth.rsa_key)
    try:
        # a wrong password first: full authentication (the key sent), refused
        _refused(server.port, "wrong")
        assert counts == {"public_key": 1, "denied": 1}
        # the first login: full authentication over plain TCP, the password RSA-encrypted
        conn, files = _pymysql(server.port)
        assert files == ["mariadb-bin.000001"]
        assert conn.server_public_key == pem and conn._auth_plugin_name == auth.CACHING_SHA2
        assert counts["full_rsa"] == 1 and counts["public_key"] == 2 and not counts["fast"]
        # the second: the fast path (no key asked for)
        conn, _ = _pymysql(server.port)
        assert conn.server_public_key is None
        assert counts["fast"] == 1 and counts["public_key"] == 2 and counts["full_rsa"] == 1
        # a wrong password once the user is cached: no fast path, full auth again, refused
        _refused(server.port, "wrong")
        assert counts["fast"] == 1 and counts["public_key"] == 3 and counts["denied"] == 2
        assert _pymysql(server.port)[0].server_public_key is None and counts["fast"] == 2
    finally:
        server.close()
    # the cache is the server's: another server starts empty (full authentication again)
    server = _sha2_server(binlog_folder)
    try:
        assert _pymysql(server.port)[0].server_public_key is not None
        assert server.auth_counts["full_rsa"] == 1 and not server.auth_counts["fast"]
    finally:
        server.close()


def test_caching_sha2_full_auth_over_tls_sends_the_password_in_clear(binlog_folder, tls):
    ca = str(tls[0].cert)
    server = _sha2_server(binlog_folder, tls)
    counts = server.auth_counts
    try:
        _refused(server.port, "wrong", ssl_ca=ca)
        assert counts == {"tls": 1, "denied": 1}   # (no public key over TLS)
        conn, files = _pymysql(server.port, ssl_ca=ca)
        assert files == ["mariadb-bin.000001"] and conn.server_public_key is None
        assert counts["full_tls"] == 1 and not counts["fast"] and not counts["public_key"]
        # then the fast path, over TLS and over plain TCP alike (one cache)
        _pymysql(server.port, ssl_ca=ca)
        _pymysql(server.port)
        assert counts["fast"] == 2 and counts["tls"] == 3 and counts["full_tls"] == 1
        _refused(server.port, "wrong", ssl_ca=ca)
        assert counts["denied"] == 2 and counts["fast"] == 2
    finally:
        server.close()


def test_serve_rsa_key_file(binlog_folder, tmp_path):
    """``serve --auth caching_sha2_password --rsa-key FILE``: the key PyMySQL gets is the
    file's; the first login asks for it, the second does not."""
    from cryptography.hazmat.primitives import serialization
    key = auth.new_rsa_key()
    path = tmp_path / "rsa.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    serve = _serve(binlog_folder, "--auth", "caching_sha2_password", "--rsa-key", str(path))
    try:
        _refused(serve.port, "wrong")
        first, files = _pymysql(serve.port)
        assert files == ["mariadb-bin.000001"]
        assert first.server_public_key == auth.public_key_pem(key)
        assert _pymysql(serve.port)[0].server_public_key is None
        _refused(serve.port, "wrong")
    finally:
        serve.stop()


# ------------------------------------------------------------------ a MariaDB replica


def test_mariadb_replica_over_tls(writer, replica, tls, tmp_path):
    ca, _server, other = tls
    folder = tmp_path / "served"
    folder.mkdir()
    first = _copy_binlogs(writer, folder)[0]
    serve = _serve(folder, *_tls_options(tls, "--require-ssl", "--heartbeat", "0.5"))
    where = f"MASTER_LOG_FILE='{first}', MASTER_LOG_POS=4, MASTER_USE_GTID=no"
    try:
        # trusting another CA: the replica's IO thread cannot connect
        _replicate(replica, serve.port, f"MASTER_SSL=1, MASTER_SSL_CA='{other.cert}', "
                                        f"MASTER_SSL_VERIFY_SERVER_CERT=1, {where}")
        error = _io_error(replica)
        assert "ssl" in error.lower() or "certificate" in error.lower(), error
        # trusting serve's CA (and --require-ssl: TLS or nothing)
        _replicate(replica, serve.port, f"MASTER_SSL=1, MASTER_SSL_CA='{ca.cert}', "
                                        f"MASTER_SSL_VERIFY_SERVER_CERT=1, {where}")
        st = _wait_caught_up(replica, writer)
        assert st["Master_SSL_Allowed"] == "Yes" and st["Master_SSL_Verify_Server_Cert"] == "Yes"
        assert st["Slave_IO_Running"] == "Yes" and st["Master_Server_Id"] == 7
        # the writer goes on; serve (idle over TLS, heartbeats going) follows the files
        _workload(writer, 101, 120)
        _copy_binlogs(writer, folder)
        _wait_caught_up(replica, writer)
        assert serve.proc.poll() is None
    finally:
        replica.q("STOP SLAVE")
        serve.stop()


def _io_error(replica, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        error = replica.slave_status().get("Last_IO_Error")
        if error:
            return error
        time.sleep(0.3)
    raise AssertionError(f"no IO error in {timeout}s: {replica.slave_status()}")



def _client_plugin_dir():
    """The folder of libmariadb's client plugins (its caching_sha2_password.so): beside the
    libmariadb.so.3 that ldconfig knows, in libmariadb3/plugin (Debian's layout); None when
    not there."""
    ldconfig = fw.tool("ldconfig")
    if not ldconfig:
        return None
    out = subprocess.run([ldconfig, "-p"], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if "libmariadb.so.3 " in line and "=>" in line:
            folder = pathlib.Path(line.split("=>")[1].strip()).parent / "libmariadb3" / "plugin"
            if (folder / "caching_sha2_password.so").is_file():
                return folder
    return None


def test_mariadb_replica_caching_sha2_full_auth_over_tls(writer, tls, tmp_path):
    """MariaDB's replica (its client with libmariadb's caching_sha2_password plugin, which a
    --plugin-dir holding the server's plugins and that one provides) against ``serve --auth
    caching_sha2_password``: a full authentication over TLS (the password in clear), then,
    reconnecting, the fast path. (Over plain TCP this client build sends the password in
    clear too, which serve refuses as MySQL does: not tested, it depends on the build.)"""
    client_plugins = _client_plugin_dir()
    if client_plugins is None:
        unavailable("libmariadb's caching_sha2_password.so not found: the MariaDB "
                    "caching_sha2_password replica test not run")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    for p in pathlib.Path(writer.q("SELECT @@plugin_dir")[0][0]).iterdir():
        (plugins / p.name).symlink_to(p)
    (plugins / "caching_sha2_password.so").symlink_to(client_plugins / "caching_sha2_password.so")
    folder = tmp_path / "served"
    folder.mkdir()
    first = _copy_binlogs(writer, folder)[0]
    sha2_replica = _start("serve-sha2-replica", "--server-id=3", f"--plugin-dir={plugins}")
    server = _sha2_server(folder, tls)
    counts = server.auth_counts
    try:
        _replicate(sha2_replica, server.port,
                   f"MASTER_SSL=1, MASTER_SSL_CA='{tls[0].cert}', MASTER_LOG_FILE='{first}', "
                   f"MASTER_LOG_POS=4, MASTER_USE_GTID=no")
        st = _wait_caught_up(sha2_replica, writer)
        assert st["Master_SSL_Allowed"] == "Yes"
        assert counts["full_tls"] == 1 and counts["tls"] == 1 and not counts["fast"]
        sha2_replica.q("STOP SLAVE")
        sha2_replica.q("START SLAVE")
        deadline = time.monotonic() + 30
        while not counts["fast"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert counts["fast"] == 1 and counts["full_tls"] == 1 and not counts["denied"]
        assert _wait_caught_up(sha2_replica, writer)["Slave_IO_Running"] == "Yes"
    finally:
        try:
            sha2_replica.q("STOP SLAVE")
        finally:
            server.close()
            sha2_replica.destroy()


def test_replication_stream_logs_in_by_caching_sha2_full_auth_then_fast_path(binlog_folder):
    """The stream client (PyMySQL's connection phase) against a caching_sha2_password master
    over plain TCP: the first stream logs in by the RSA full authentication, the second by the
    fast path; both deliver the file's events, as BinlogReader reads them."""
    from binlog_schema.wire.replication.client import ReplicationStream
    from binlog_schema.format.stream import BinlogReader
    want = [(r.type_name, r.offset) for r in
            BinlogReader(str(binlog_folder / "mariadb-bin.000001"))]
    server = _sha2_server(binlog_folder)
    try:
        for path in ("full_rsa", "fast"):
            stream = ReplicationStream("127.0.0.1", server.port, USER, PASSWORD,
                                       server_id=4321)
            try:
                got = [(r.type_name, r.offset) for r in stream]
            finally:
                stream.close()
            assert server.auth_counts[path] == 1, server.auth_counts
            assert got == want
    finally:
        server.close()
