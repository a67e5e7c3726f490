"""The schema history over the corpus: every QUERY of every file replayed (a folder's files
are one stream, in name order). Each statement is understood, ignored (not schema DDL) or
refused with the typed DDLRefused and a reason; no other exception. The refused ones are DDL
the model truly does not handle; every TABLE_MAP of a table the history knows agrees with it.
"""

import collections

import pytest

from binlog_schema import BinlogReader, table_map_from_event
from binlog_schema.changes.schema import DDLRefused, SchemaHistory

from ..conftest import corpus_files

# (file name, what the refusal says): the corpus's DDL the history does not model
EXPECTED_REFUSALS = {
    # MySQL adds a hidden column for a functional key part: its type is the expression's
    ("rpl_unfiltered_hidden_gcol.000001", "functional key part"),
    # ... so the table is not known to the ALTER after it
    ("rpl_unfiltered_hidden_gcol.000001", "not in the history"),
}


def streams():
    by_dir = collections.OrderedDict()
    for f in corpus_files():
        by_dir.setdefault(f.parent, []).append(f)
    return list(by_dir.items())


def replay(files):
    history = SchemaHistory()
    counts = collections.Counter()
    refused, disagree = [], []
    for index, f in enumerate(files):
        for rec in BinlogReader(str(f), skip_errors=True):
            for r in [rec] + list(rec.inner or ()):
                if r.error is not None or r.value is None:
                    continue
                if r.type_name in ("QUERY_EVENT", "QUERY_COMPRESSED_EVENT",
                                   "EXECUTE_LOAD_QUERY_EVENT"):
                    if "query" not in r.value["body"]:
                        continue
                    try:
                        out = history.apply_query(r.value["body"], r.ctx, (index, r.offset))
                    except DDLRefused as e:
                        counts["refused"] += 1
                        refused.append((f.name, str(e)))
                        continue
                    counts[out.kind] += 1
                elif r.type_name == "TABLE_MAP_EVENT":
                    tm = table_map_from_event(r.value, r.ctx)
                    t = history.table(tm.database, tm.table)
                    if t is None:
                        counts["map_of_unknown_table"] += 1
                        continue
                    problems = t.check(tm)
                    counts["map_disagrees" if problems else "map_agrees"] += 1
                    disagree += [(f.name, r.offset, p) for p in problems]
    return counts, refused, disagree


@pytest.fixture(scope="module")
def corpus_replay(corpus):
    total = collections.Counter()
    refused, disagree = [], []
    for _, files in streams():
        counts, r, d = replay(files)
        total.update(counts)
        refused += r
        disagree += d
    return total, refused, disagree


def test_every_query_is_understood_ignored_or_refused_with_a_reason(corpus_replay):
    total, refused, _ = corpus_replay
    assert total["changed"] + total["unchanged"] >= 290, total
    assert total["ignored"] > 1000
    for name, message in refused:
        assert any(name == n and why in message for n, why in EXPECTED_REFUSALS), \
            (name, message)
        assert "[" in message      # the statement is named


def test_table_maps_agree_with_the_history(corpus_replay):
    total, _, disagree = corpus_replay
    assert not disagree, "\n".join(f"{n}@{o}: {p}" for n, o, p in disagree[:20])
    assert total["map_agrees"] >= 700, total
