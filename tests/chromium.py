"""Headless Chromium (Debian's ``chromium``) driven through the DevTools protocol with
``websocket-client``: open a page, collect its console errors and uncaught exceptions,
evaluate JavaScript, take screenshots of regions; and a small PNG reader (8-bit RGB/RGBA, as
Chromium writes them) for the pixels of a screenshot."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}")
                                      else None)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with a fresh profile, and its first page's DevTools session."""

    def __init__(self, width=1280, height=2400):
        import websocket
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        self.proc = subprocess.Popen(
            [chromium_binary(), *FLAGS, f"--user-data-dir={self.profile}",
             "--remote-debugging-port=0", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            self.close()
            raise RuntimeError("chromium did not start its DevTools server")
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        url = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
        self.ws = websocket.create_connection(url, timeout=60)
        self.next_id = 0
        self.events: list = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(method)

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for e in self.events:
            if e.get("method") == method:
                return e
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            self.events.append(msg)
            if msg.get("method") == method:
                return msg
        raise TimeoutError(method)

    def open(self, url):
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def errors(self) -> list:
        """Console errors, uncaught exceptions and log errors seen so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("text", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description")))
                                    for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text"))
        return out

    def requests(self) -> list:
        """URLs of network requests the page made (Network domain events)."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, x, y, width, height) -> bytes:
        r = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                      clip={"x": x, "y": y, "width": width, "height": height, "scale": 1})
        return base64.b64decode(r["data"])

    def close(self):
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            self.proc.kill()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def png_pixels(data: bytes):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit, non-interlaced RGB or RGBA
    PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and not interlace, (depth, color, interlace)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        prev = line
    return width, height, rows
