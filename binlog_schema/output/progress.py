"""The progress line of long commands (``decode``, ``sql``, ``flashback``, ``roundtrip``,
``stats``): bytes read of the inputs' total, the rate and the time left, on stderr, drawn by
``tqdm``; only when stderr is a terminal and the inputs are large (or ``--progress`` asks for
it, whatever stderr is). Otherwise nothing is imported and nothing is done: commands on small
files or writing to pipes start and run as before.

A command wraps the records it reads (:meth:`Progress.watch`, the position of every 1024th
record noted), says when a file is done (:meth:`Progress.file_done`) and, when worker
processes read for it, follows what they say they have read (:meth:`Progress.follow`: lines of
byte counts on a pipe)."""

from __future__ import annotations

import os
import sys
import threading

MIN_TOTAL = 16 << 20   # smaller inputs take a few seconds at most: no progress line


def progress_for(paths, asked: bool = False, what: str = "read", stream=None):
    """A :class:`Progress` for reading ``paths``, or None: stderr (``stream``) is not a
    terminal, or the inputs are small (less than :data:`MIN_TOTAL` bytes), unless ``asked``
    (``--progress``)."""
    stream = stream or sys.stderr
    if not asked:
        try:
            if not stream.isatty():
                return None
        except (AttributeError, ValueError):
            return None
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(p)
        except OSError:
            pass
    if not asked and total < MIN_TOTAL:
        return None
    return Progress(total, what, stream)


class Progress:
    """One progress line over ``total`` bytes, on ``stream``."""

    def __init__(self, total: int, what: str = "read", stream=None):
        import shutil
        from tqdm import tqdm
        # (the terminal's size, at most 100 wide; 100 x 24 when it does not say, as a
        # fresh pseudo-terminal does not: tqdm would then draw nothing)
        size = shutil.get_terminal_size((100, 24))
        self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                        desc=what, file=stream or sys.stderr, mininterval=0.5, leave=False,
                        ncols=min(size.columns, 100), nrows=size.lines, smoothing=0.1)
        self.base = 0          # the bytes of the files done
        self._thread = None
        self._lock = threading.Lock()

    def _at(self, n: int) -> None:
        with self._lock:
            self.bar.update(max(self.base + n - self.bar.n, 0))

    def watch(self, records):
        """``records`` as they come, the position noted every 1024 records."""
        k = 0
        for rec in records:
            k += 1
            if not k & 1023:
                self._at(rec.offset if rec.parent_offset is None else rec.parent_offset)
            yield rec

    def file_done(self, path) -> None:
        try:
            self.base += os.path.getsize(path)
        except OSError:
            pass
        self._at(0)

    def restart(self, path) -> None:
        """The file is read again (with recovery): its part starts over."""
        with self._lock:
            self.bar.n = self.base
            self.bar.refresh()

    def follow(self, fd) -> None:
        """Byte counts (one a line) read from the pipe ``fd`` by a thread, added as they come
        (worker processes reading parts of the current file)."""
        def run():
            done = 0
            with os.fdopen(fd, "rb") as f:
                for line in f:
                    try:
                        done += int(line)
                    except ValueError:
                        continue
                    self._at(done)
        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def unfollow(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        self.unfollow()
        self.bar.close()


__all__ = ["MIN_TOTAL", "Progress", "progress_for"]
