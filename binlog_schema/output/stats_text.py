"""The terminal form of ``binlog-schema stats``: sections of aligned columns, at most 100
characters wide, made from the figures' JSON form (:meth:`~..model.stats.Stats.to_dict`), so
that the table and ``--format json`` cannot disagree."""

from __future__ import annotations

import datetime as _dt

WIDTH = 100


def when(ts) -> str:
    """A Unix time as UTC text (``-`` when unknown)."""
    if ts is None:
        return "-"
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def size_text(n) -> str:
    """Bytes, readable: ``812 B``, ``1.5 KiB``, ``129.8 MiB``."""
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def _cut(text: str, width: int) -> str:
    text = str(text)
    return text if len(text) <= width else text[:width - 1] + "~"


def _table(title, columns, rows) -> list:
    """Lines of a section: ``columns`` are (name, width, align '<' or '>'); the first column
    is cut to its width."""
    out = ["", title]
    out.append(" ".join(f"{name:{align}{width}}" for name, width, align in columns).rstrip())
    for row in rows:
        cells = [f"{_cut(v, w):{a}{w}}" for v, (_n, w, a) in zip(row, columns)]
        out.append(" ".join(cells).rstrip())
    return out


def _n(v) -> str:
    return "-" if v is None else f"{v:,}"


def stats_lines(d: dict, top: int | None = None) -> list:
    """The lines of the terminal table of the figures ``d`` (``Stats.to_dict()``)."""
    lines = []
    files, span = d["files"], d["span"]
    lines.append(f"{len(files)} file{'s' if len(files) != 1 else ''}, "
                 f"{size_text(sum(f['size'] or 0 for f in files))}, "
                 f"{_n(d['events']['count'])} events, from {when(span['first_timestamp'])} "
                 f"to {when(span['last_timestamp'])} UTC")
    c, t = d["changes"], d["transactions"]
    lines.append(f"row changes {_n(c['total'])}: inserts {_n(c['inserts'])}, updates "
                 f"{_n(c['updates'])}, deletes {_n(c['deletes'])}")
    lines.append(f"transactions {_n(t['count'])} ({size_text(t['bytes'])}), "
                 f"{_n(t['uncommitted'])} without their end in the files")
    if d["statement_changes"]:
        lines.append("statement-based changes (QUERY events, no rows): " + ", ".join(
            f"{v.upper()} {_n(n)}" for v, n in d["statement_changes"].items()))
    name_w = 34
    lines += _table("Tables, by row changes", [
        ("table", name_w, "<"), ("changes", 11, ">"), ("inserts", 10, ">"),
        ("updates", 10, ">"), ("deletes", 10, ">"), ("events", 8, ">"), ("bytes", 10, ">")],
        [(f"{x['database']}.{x['table']}", _n(x["changes"]), _n(x["inserts"]),
          _n(x["updates"]), _n(x["deletes"]), _n(x["rows_events"]), size_text(x["bytes"]))
         for x in d["tables"][:top]])
    if top is not None and len(d["tables"]) > top:
        lines.append(f"... and {len(d['tables']) - top} more tables (--format json: all)")
    tx_cols = [("transaction (GTID, or file:position)", 44, "<"), ("bytes", 10, ">"),
               ("changes", 10, ">"), ("tables", 6, ">"), ("duration", 9, ">"),
               ("began (UTC)", 16, ">")]

    def tx_rows(items):
        return [(x["id"], size_text(x["bytes"]), _n(x["changes"]), len(x["tables"]),
                 "-" if x["duration"] is None else f"{x['duration']} s",
                 when(x["timestamp"])[:16]) for x in items]
    lines += _table("Largest transactions", tx_cols, tx_rows(t["largest"]))
    lines += _table("Longest transactions (first event to XID/COMMIT)", tx_cols,
                    tx_rows(t["longest"]))
    busiest = sorted(d["per_minute"], key=lambda m: (-m["changes"], m["minute"]))[:5]
    if busiest:
        lines += _table("Busiest minutes", [("minute (UTC)", 16, "<"), ("changes", 11, ">"),
                                            ("busiest table", 50, "<")],
                        [(when(m["minute"])[:16], _n(m["changes"]),
                          max(m["tables"].items(), key=lambda kv: (kv[1], kv[0]))[0])
                         for m in busiest])
    lines += _table("Events by type", [("type", 32, "<"), ("events", 12, ">"),
                                       ("bytes", 12, ">")],
                    [(x["type"], _n(x["events"]), size_text(x["bytes"]))
                     for x in d["event_types"]])
    if d["gtids"]:
        lines += _table("GTIDs", [("source", 38, "<"), ("transactions", 12, ">"),
                                  ("ranges", 46, "<")],
                        [(g["source"], _n(g["transactions"]), g["text"]) for g in d["gtids"]])
    lines += _table("Files", [("file", 40, "<"), ("size", 10, ">"), ("events", 10, ">"),
                              ("first event (UTC)", 17, ">"), ("last event (UTC)", 16, ">")],
                    [(f["file"] if len(f["file"]) <= 40 else "~" + f["file"][-39:],
                      size_text(f["size"]), _n(f["events"]), when(f["first_timestamp"])[:16],
                      when(f["last_timestamp"])[:16]) for f in files])
    large = d["large_events"]
    lines.append("")
    lines.append(f"Events over {size_text(large['limit'])}: {len(large['events'])}")
    for e in large["events"]:
        lines.append(f"  {e['file']} at {e['offset']}: {e['type']}, {size_text(e['size'])}")
    if d["skipped"] or d["undecodable"]:
        lines.append("")
        lines.append(f"Not read: {len(d['skipped'])} byte ranges skipped "
                     f"({size_text(sum(s['bytes'] for s in d['skipped']))}), "
                     f"{len(d['undecodable'])} events not decoded (each said on stderr)")
        for s in d["skipped"][:10]:
            lines.append(_cut(f"  {s['file']}: bytes {s['start']} to {s['end']}: "
                              f"{s['reason']}", WIDTH))
        for u in d["undecodable"][:10]:
            lines.append(_cut(f"  {u['file']}: {u['type']} at {u['offset']}: {u['reason']}",
                              WIDTH))
    return lines


__all__ = ["stats_lines", "size_text", "when"]
