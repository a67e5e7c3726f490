"""``decode`` of one file by one process and by worker processes, as bytes to compare: what
the tests of the parallel decode (tests/corpus/test_parallel*.py,
tests/unit/test_undecoded_rows.py) run both ways."""

from __future__ import annotations

import io

from binlog_schema.output import parallel
from binlog_schema.output.write import Output, write_events


def sequential(path, **options) -> tuple:
    """(status, stdout bytes, stderr bytes) of the one-process loop."""
    out, err = io.StringIO(), io.StringIO()
    o = Output(out)
    status = write_events(str(path), o, err=err, **options)
    o.flush()
    return status, out.getvalue().encode(), err.getvalue().encode()


def shared(path, tmp_path, workers=3, segment=20_000, **options) -> tuple:
    """(status, stdout bytes, stderr bytes) of ``workers`` processes over segments of about
    ``segment`` bytes (every file cut: no minimum size)."""
    outp, errp = tmp_path / "out", tmp_path / "err"
    with open(outp, "wb") as fo, open(errp, "wb") as fe:
        status = parallel.write_file(str(path), Output(io.StringIO()), workers=workers,
                                     min_size=0, segment=segment,
                                     fds=(fo.fileno(), fe.fileno()), **options)
    return status, outp.read_bytes(), errp.read_bytes()
