"""The schema history applied where rows are decoded, over the corpus (a folder's files are one
stream, in name order, the history replayed from their own DDL, nothing seeded): a TABLE_MAP
with column names (FULL metadata) keeps them, the history only checked against it, so every
row change is the same as without the history; a map without names gets the history's only
when its table agrees with it; no map disagrees with the history (as test_schema_corpus's
check says), so no SchemaMismatch is reported.
"""

import collections

import pytest

from binlog_schema import BinlogReader
from binlog_schema.format.errors import BinlogError
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.schema import SchemaHistory

from ..conftest import corpus_files


def streams():
    by_dir = collections.OrderedDict()
    for f in corpus_files():
        by_dir.setdefault(f.parent, []).append(f)
    return list(by_dir.items())


def decode(files, history):
    """[(row change, the typed table map it was decoded through)], decoders, failures."""
    out, decoders, failed = [], [], 0
    for index, f in enumerate(files):
        decoder = RowDecoder(str(f), schema=history, file_index=index)
        decoders.append(decoder)
        for rec in BinlogReader(str(f), skip_errors=True, decode="lazy"):
            for r in [rec] + list(rec.inner or ()):
                if r.error is not None or r.gap is not None:
                    continue
                try:
                    changes = decoder.feed_one(r)
                except BinlogError:
                    failed += 1
                    continue
                for ch in changes:
                    tm = decoder.table_maps[r.value["body"]["table_id"]]
                    out.append((ch, tm))
    return out, decoders, failed


@pytest.fixture(scope="module")
def corpus_rows(corpus):
    result = []
    for _, files in streams():
        plain, _, failed_plain = decode(files, None)
        got, decoders, failed = decode(files, SchemaHistory())
        result.append((files, plain, got, decoders, failed_plain, failed))
    return result


def test_full_maps_keep_their_names_and_the_rows_are_the_same(corpus_rows):
    full = named = 0
    for files, plain, got, _decoders, failed_plain, failed in corpus_rows:
        assert failed == failed_plain, files[0]
        assert len(got) == len(plain), files[0]
        for (g, gtm), (p, ptm) in zip(got, plain):
            same = (g.to_dict(), g.columns, g.primary_key) == \
                (p.to_dict(), p.columns, p.primary_key)
            if ptm.row_metadata == "full":
                full += 1
                assert same, (files[0], g.offset)   # (names from the map)
            elif any(c.name for c in gtm.columns):  # named from the history
                named += 1
                assert [c.name for c in gtm.columns] == g.columns
                assert not any(c.startswith("@") for c in g.columns)
                assert len(g.columns) == len(p.columns)
            else:
                assert same, (files[0], g.offset)
    print(f"{full} row changes of FULL table maps unchanged, {named} named from the history")
    assert full >= 20 and named >= 10000, (full, named)


def test_no_table_map_disagrees_with_the_history(corpus_rows):
    problems = [p for *_, decoders, _a, _b in corpus_rows for d in decoders
                for p in d.problems]
    assert not problems, "\n".join(str(p) for p in problems[:10])


def test_statement_based_changes_are_counted(corpus_rows):
    counted = collections.Counter()
    for _files, _plain, _got, decoders, _a, _b in corpus_rows:
        for d in decoders:
            counted.update(d.statements)
    assert counted["insert"] > 0, counted
