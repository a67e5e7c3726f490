"""A logging TCP proxy for the golden vectors of ``specs/protocol/``: listens on loopback,
forwards each connection to a server, and writes every packet both ways as a JSON line
(``{"connection", "from": "client"|"server", "sequence_id", "hex"}``: the payload without the
4-byte header) to OUT. Runs until killed (or for ``--seconds``).

    python scripts/capture_packets.py --port 3400 --to 127.0.0.1:3306 OUT.jsonl

The vectors' ``source:`` then says "captured from <server> through a logging TCP proxy; the
client: <client and version> (<what it did>)". Loopback only: it forwards to the address given.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time


def _pipe(src, dst, side, conn_id, out, lock):
    buf = b""
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if not data:
            break
        try:
            dst.sendall(data)
        except OSError:
            break
        buf += data
        while len(buf) >= 4:
            length = int.from_bytes(buf[:3], "little")
            if len(buf) < 4 + length:
                break
            with lock:
                out.write(json.dumps({"connection": conn_id, "from": side,
                                      "sequence_id": buf[3], "hex": buf[4:4 + length].hex()})
                          + "\n")
                out.flush()
            buf = buf[4 + length:]
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--port", type=int, required=True, help="the loopback port to listen on")
    p.add_argument("--to", required=True, help="HOST:PORT of the server")
    p.add_argument("--seconds", type=float, help="stop after this long")
    args = p.parse_args()
    host, port = args.to.rsplit(":", 1)
    listener = socket.create_server(("127.0.0.1", args.port))
    listener.settimeout(0.5)
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds if args.seconds else None
    conn_id = 0
    with open(args.out, "a", encoding="utf-8") as out:
        while deadline is None or time.monotonic() < deadline:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            conn_id += 1
            server = socket.create_connection((host, int(port)))
            for src, dst, side in ((client, server, "client"), (server, client, "server")):
                threading.Thread(target=_pipe, args=(src, dst, side, conn_id, out, lock),
                                 daemon=True).start()


if __name__ == "__main__":
    main()
