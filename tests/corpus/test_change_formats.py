"""Corpus tier: ``decode --format maxwell`` and ``--format debezium`` on every corpus file
with rows: valid JSON on every line, one line per row change (as many as the JSON Lines'
rows), the exit status the JSON Lines get, order keys increasing through each file."""

from __future__ import annotations

import io
import json

from binlog_schema.output.write import Output, write_events


def run(path, fmt, **kw):
    buf, err = io.StringIO(), io.StringIO()
    out = Output(buf)
    status = write_events(str(path), out, fmt=fmt, err=err, **kw)
    out.flush()
    return status, buf.getvalue().splitlines()


def test_change_formats_on_every_corpus_file_with_rows(corpus):
    files = 0
    for path in corpus:
        status, lines = run(path, "jsonl", rows=True)
        changes = sum(len(json.loads(line).get("rows") or ()) for line in lines)
        if not changes:
            continue
        files += 1
        keys = {}
        for fmt in ("maxwell", "debezium"):
            got_status, got = run(path, fmt)
            assert got_status == status, (path, fmt)
            assert len(got) == changes, (path, fmt)
            records = [json.loads(line) for line in got]
            keys[fmt] = [r["order_key"] if fmt == "maxwell" else r["source"]["sequence"]
                         for r in records]
        assert keys["maxwell"] == keys["debezium"], path
        assert keys["maxwell"] == sorted(set(keys["maxwell"])), path  # strictly increasing
    assert files >= 40
