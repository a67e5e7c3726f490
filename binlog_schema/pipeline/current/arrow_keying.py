"""Row changes keyed in Arrow, batch by batch (the function ``spark current``'s
``mapInArrow`` runs in the executors): what :func:`~.keying.keyed_changes` gives, with
vectorized Arrow and NumPy operations per table version, no Python per row (but for the
rare rows with a problem, whose message is written in Python).

The rows of a batch are grouped by their span (:func:`~.keying.span_rows`: one version of
one table over a range of order keys, found by name and order key). Within a span every
image is a row of a matrix of references into the batch's values (a column of the table's
final columns per matrix column; -1: the image lacks it): an image projected on the final
columns (:func:`~.fold.project`: names lowered, columns not in the final table left out;
a full image filled with the fills of the columns it lacks), the old image overlaid by the
new (a partial image's merge), a key (the key columns' values, all or none); each change
becomes its keyed events (the module docstring of :mod:`.keying`).
"""

from __future__ import annotations

from binlog_schema.pipeline.current.fold import NO_KEY, NO_TABLE, unknown_fill, unnamed_column

NO_SPAN = -1


class _Span:
    """One span's constants, as the vectorized steps use them."""

    def __init__(self, row: dict, vtype):
        import numpy as np
        import pyarrow as pa
        self.origin = row["origin"]
        self.db, self.table, self.lo, self.hi = row["database"], row["table"], row["lo"], \
            row["hi"]
        self.final = list(row["fills"])                   # final origins (text), in order
        col = {o: i for i, o in enumerate(self.final)}
        names = list(row["names"])                         # lower-case names of the version
        self.names = pa.array(names, pa.string())
        self.name_col = np.array([col.get(row["fnames"].get(n), -1) if n in row["fnames"]
                                  else -1 for n in names] + [-2], dtype=np.int64)
        self.ncols = row["ncols"]
        self.fills = pa.array([row["fills"][o] for o in self.final], vtype)
        self.unknown = np.array([o in set(row["unknown"]) for o in self.final], dtype=bool)
        self.keycols = np.array([col.get(o, -1) for o in row["keycols"]], dtype=np.int64)
        self.keyed = bool(row["keyed"])
        self.truncs = sorted(row["truncs"])
        self.keys = pa.array(self.final, pa.string())


def prepare(spans: list, vtype) -> dict:
    """The spans (:func:`~.keying.span_rows`' dicts) by (database, table), each list sorted
    by its lower order key."""
    out = {}
    for row in spans:
        out.setdefault((row["database"], row["table"]), []).append(_Span(row, vtype))
    for v in out.values():
        v.sort(key=lambda s: s.lo)
    return out


def key_batches(batches, spans: dict, vtype, schema):
    """The keyed events (record batches of ``schema``, the Arrow form of
    :func:`~.keying.keyed_schema`) of record batches of row changes (``database``,
    ``table``, ``operation``, ``before``, ``after``, ``okey``, ``ts``)."""
    for batch in batches:
        if batch.num_rows:
            yield from _key_batch(batch, spans, vtype, schema)


def _key_batch(batch, spans, vtype, schema):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    n = batch.num_rows
    sid = np.full(n, NO_SPAN, dtype=np.int64)
    found: list = []
    db, tb, okey = batch.column("database"), batch.column("table"), batch.column("okey")
    pair = pc.binary_join_element_wise(db.fill_null(""), tb.fill_null(""), "\x00")
    enc = pc.dictionary_encode(pair)
    codes = enc.indices.to_numpy(zero_copy_only=False)
    valid = (pc.is_valid(db).to_numpy(zero_copy_only=False)
             & pc.is_valid(tb).to_numpy(zero_copy_only=False))
    for u, name in enumerate(enc.dictionary.to_pylist()):
        d, _, t = name.partition("\x00")
        here = codes == u
        for s in spans.get((d, t), ()):
            m = here & valid & pc.greater_equal(okey, s.lo).to_numpy(zero_copy_only=False)
            if s.hi is not None:
                m &= pc.less(okey, s.hi).to_numpy(zero_copy_only=False)
            if m.any():
                sid[m & (sid == NO_SPAN)] = len(found)
                found.append(s)
    order = np.argsort(sid, kind="stable")
    bounds = np.flatnonzero(np.diff(sid[order])) + 1
    for rows in np.split(order, bounds):
        s = sid[rows[0]]
        sub = batch.take(pa.array(rows))
        if s == NO_SPAN:
            yield _unknown_table(sub, schema)
        else:
            yield _span_batch(sub, found[s], vtype, schema)


def _unknown_table(sub, schema):
    """Changes of no known table: one ``problem`` event each."""
    import pyarrow as pa
    import pyarrow.compute as pc
    n = sub.num_rows
    problem = pc.binary_join_element_wise(sub.column("database"), sub.column("table"), ".")
    problem = pc.binary_join_element_wise(problem, pa.scalar(": " + NO_TABLE), "")
    cols = {"origin": pa.array([-1] * n, pa.int64()), "okey": sub.column("okey"),
            "sub": pa.array([0] * n, pa.int32()),
            "op": pa.array(["problem"] * n, pa.string()),
            "operation": sub.column("operation"),
            "key": pa.nulls(n, schema.field("key").type),
            "image": pa.nulls(n, schema.field("image").type), "problem": problem,
            "keyed": pa.array([False] * n), "move": pa.array([False] * n),
            "ep": pa.array([0] * n, pa.int32()), "ts": sub.column("ts")}
    return pa.record_batch([cols[f.name].cast(f.type) for f in schema], schema=schema)


def _side(m, s, n, base):
    """One image column (a MapArray) of a span's rows: (references matrix n x final,
    sizes (-1: null), values, unnamed names per row (a dict row -> names))."""
    import numpy as np
    import pyarrow.compute as pc
    w = len(s.final)
    offsets = m.offsets.to_numpy(zero_copy_only=False)
    first, last = int(offsets[0]), int(offsets[-1])
    lengths = np.diff(offsets)
    null = m.is_null().to_numpy(zero_copy_only=False)
    sizes = np.where(null, -1, lengths)
    keys = m.keys.slice(first, last - first)
    values = m.items.slice(first, last - first)
    parent = np.repeat(np.arange(n), lengths)
    idx = pc.index_in(pc.utf8_lower(keys), value_set=s.names).fill_null(-1) \
        .to_numpy(zero_copy_only=False).astype(np.int64)
    col = s.name_col[idx]          # (-1: named, not final; -2: not a name of the version)
    refs = np.full((n, w), -1, dtype=np.int64)
    kept = col >= 0
    refs[parent[kept], col[kept]] = base + np.flatnonzero(kept)
    unnamed = {}
    if (col == -2).any():
        names = keys.to_pylist()
        for e in np.flatnonzero(col == -2):
            unnamed.setdefault(int(parent[e]), []).append(names[e])
    return refs, sizes, values, unnamed


def _fill(refs, full, fill_base):
    """``refs`` with the fills of the final columns a full row lacks."""
    import numpy as np
    missing = (refs < 0) & full[:, None]
    if missing.any():
        refs = refs.copy()
        cols = np.nonzero(missing)[1]
        refs[missing] = fill_base + cols
    return refs


def _key(refs, keycols):
    """Per row, the references of its key columns (a matrix), and whether it has them all."""
    import numpy as np
    n = refs.shape[0]
    if (keycols < 0).any():
        return np.full((n, len(keycols)), -1, dtype=np.int64), np.zeros(n, dtype=bool)
    k = refs[:, keycols]
    return k, (k >= 0).all(axis=1)


def _same_values(values, a, b):
    """Whether the Values at references ``a`` and ``b`` are equal, null-safe (a Value's own
    null included), element by element."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    eq = a == b
    todo = np.flatnonzero(~eq)
    if not len(todo):
        return eq
    x, y = values.take(pa.array(a[todo])), values.take(pa.array(b[todo]))
    xv, yv = x.is_valid().to_numpy(zero_copy_only=False), y.is_valid().to_numpy(
        zero_copy_only=False)
    same = xv == yv
    for i, f in enumerate(x.type):
        fx, fy = pc.struct_field(x, [i]), pc.struct_field(y, [i])
        if pa.types.is_list(f.type) or pa.types.is_large_list(f.type):
            px, py = fx.to_pylist(), fy.to_pylist()
            same &= np.array([p == q for p, q in zip(px, py)], dtype=bool)
            continue
        both_null = (pc.is_null(fx).to_numpy(zero_copy_only=False)
                     & pc.is_null(fy).to_numpy(zero_copy_only=False))
        equal = pc.fill_null(pc.equal(fx, fy), False).to_numpy(zero_copy_only=False)
        same &= both_null | equal
    same |= ~xv & ~yv
    eq[todo] = same
    return eq


def _span_batch(sub, s, vtype, schema):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    n = sub.num_rows
    operation = sub.column("operation")
    op = operation.fill_null("").to_numpy(zero_copy_only=False)
    insert, delete, update = op == "insert", op == "delete", op == "update"
    bm, am = sub.column("before"), sub.column("after")
    b_refs, b_size, b_vals, b_unnamed = _side(bm, s, n, 0)
    a_refs, a_size, a_vals, a_unnamed = _side(am, s, n, len(b_vals))
    fill_base = len(b_vals) + len(a_vals)
    values = pa.concat_arrays([v if v.type == vtype else v.cast(vtype)
                               for v in (b_vals, a_vals, s.fills)])
    full_b = b_size >= s.ncols
    full_a = a_size >= s.ncols
    full_i = insert | full_a
    old_img = _fill(b_refs, full_b, fill_base)
    img = _fill(a_refs, full_i, fill_base)
    merged = np.where(img >= 0, img, old_img)
    old_k, old_ok = _key(old_img, s.keycols)
    new_src = np.where(full_a[:, None], img, merged)
    new_k, new_ok = _key(new_src, s.keycols)
    ins_k, ins_ok = _key(img, s.keycols)
    # (old.eqNullSafe(new): both null, or both there and equal)
    same = ~old_ok & ~new_ok
    both = np.flatnonzero(old_ok & new_ok & ~insert & ~delete)
    if len(both):
        eq = _same_values(values, old_k[both].ravel(), new_k[both].ravel())
        same[both] = eq.reshape(len(both), -1).all(axis=1) if len(s.keycols) else True
    two = ~insert & ~delete & ~same
    move = update & ~same & ~full_a
    # the change's problems (rare: written per row)
    problems = _problems(s, n, insert, delete, b_unnamed, a_unnamed, b_refs, a_refs,
                         full_b, full_i)
    # event 0 of every change; event 1 (a put) of an update that changes the key
    op0 = np.where(insert | (~delete & same & full_a), "put",
                   np.where(delete | ~same, "del", "merge"))
    key0 = np.where(insert[:, None], ins_k, np.where((delete | ~same)[:, None], old_k, new_k))
    key0_ok = np.where(insert, ins_ok, np.where(delete | ~same, old_ok, new_ok))
    img0_null = delete | (~insert & ~same)
    img0 = np.where(img0_null[:, None], -1, img)
    r1 = np.flatnonzero(two)
    img1 = np.where(full_a[r1][:, None], img[r1], merged[r1])
    origin = pa.array(np.full(n + len(r1), s.origin, dtype=np.int64))
    ep = np.zeros(n, dtype=np.int32)
    for t in s.truncs:
        ep += pc.greater_equal(sub.column("okey"), t).to_numpy(zero_copy_only=False)
    rows = np.concatenate([np.arange(n), r1])
    ts = sub.column("ts").take(pa.array(rows))
    okey = sub.column("okey").take(pa.array(rows))
    key_ok = np.concatenate([key0_ok, new_ok[r1]])
    problem = [_joined(problems.get(int(r)), not ok)
               for r, ok in zip(rows, key_ok)] if problems or not key_ok.all() else None
    cols = {
        "origin": origin, "okey": okey,
        "sub": pa.array(np.concatenate([np.zeros(n, np.int32), np.ones(len(r1), np.int32)])),
        "op": pa.array(np.concatenate([op0, np.full(len(r1), "put", dtype=object)]),
                       pa.string()),
        "operation": pa.concat_arrays([operation, pa.nulls(len(r1), pa.string())]),
        "key": _lists(values, np.concatenate([key0, new_k[r1]]), key_ok,
                      schema.field("key").type),
        "image": _maps(values, s, np.concatenate([img0, img1]),
                       np.concatenate([img0_null, np.zeros(len(r1), dtype=bool)]),
                       schema.field("image").type),
        "problem": pa.array(problem, pa.string()) if problem is not None
        else pa.nulls(n + len(r1), pa.string()),
        "keyed": pa.array(np.full(n + len(r1), s.keyed)),
        "move": pa.array(np.concatenate([move, move[r1]])),
        "ep": pa.array(np.concatenate([ep, ep[r1]])), "ts": ts}
    return pa.record_batch([cols[f.name].cast(f.type) for f in schema], schema=schema)


def _problems(s, n, insert, delete, b_unnamed, a_unnamed, b_refs, a_refs, full_b, full_i):
    """row -> the problems of projecting its images (:func:`~.keying.projection_problems`)."""
    import numpy as np
    out = {}

    def unknown(refs, full):
        if not s.unknown.any():
            return {}
        bad = (refs < 0) & s.unknown[None, :] & full[:, None]
        return {int(r): [unknown_fill(s.final[c]) for c in np.flatnonzero(bad[r])]
                for r in np.flatnonzero(bad.any(axis=1))}
    for unnamed, unk, skip in ((b_unnamed, unknown(b_refs, full_b), insert),
                               (a_unnamed, unknown(a_refs, full_i), delete)):
        for r in sorted(set(unnamed) | set(unk)):
            if skip[r]:
                continue
            out.setdefault(r, []).extend(
                [unnamed_column(k) for k in unnamed.get(r, [])]
                + unk.get(r, []))
    return {r: p for r, p in out.items() if p}


def _joined(problems, no_key: bool):
    p = list(problems or []) + ([NO_KEY] if no_key else [])
    return "; ".join(p) if p else None


def _lists(values, refs, ok, typ):
    """A list array (``typ``) of the Values at ``refs`` per row, null where not ``ok``."""
    import numpy as np
    import pyarrow as pa
    k = refs.shape[1]
    lengths = np.where(ok, k, 0)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    flat = refs[ok].ravel()
    items = values.take(pa.array(flat, pa.int64()))
    return pa.ListArray.from_arrays(pa.array(offsets), items, type=typ,
                                    mask=pa.array(~ok))


def _maps(values, s, refs, null, typ):
    """A map array (``typ``): per row, the final columns it has (references >= 0), in the
    table's column order, keyed by origin; null where ``null``."""
    import numpy as np
    import pyarrow as pa
    there = (refs >= 0) & ~null[:, None]
    lengths = there.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    rows, cols = np.nonzero(there)
    keys = s.keys.take(pa.array(cols, pa.int64()))
    items = values.take(pa.array(refs[rows, cols], pa.int64()))
    return pa.MapArray.from_arrays(pa.array(offsets), keys, items, type=typ,
                                   mask=pa.array(null))
