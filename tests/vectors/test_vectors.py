"""Every golden vector in specs/, both ways (bytes -> value, value -> bytes)."""

import pathlib

import pytest

from binlog_schema.synthetic.vector_checks import check_vector, iter_vectors

SPECS = pathlib.Path(__file__).resolve().parents[2] / "specs"
VECTORS = list(iter_vectors(SPECS))


def test_there_are_vectors_of_every_kind():
    names = [doc.get("name", "") for _, _, doc in VECTORS]
    assert len(VECTORS) > 150
    assert any("error" in doc for _, _, doc in VECTORS)
    assert any(n.startswith("mariadb-") for n in names)
    assert any(n.startswith("seed-") for n in names)
    assert sum(n.startswith("mysql-json-zero") for n in names) == 5   # zero dates in JSON


@pytest.mark.parametrize("path,index,doc", VECTORS,
                         ids=[f"{p.name}:{d.get('name', i)}" for p, i, d in VECTORS])
def test_vector(path, index, doc):
    problems = check_vector(doc)
    assert not problems, "\n".join(problems)


def test_a_changed_value_fails_the_vector():
    """The checker itself: a vector whose expectation was edited must fail both ways."""
    _, _, doc = next(v for v in VECTORS if v[2].get("name") == "seed-001-presentation-person")
    broken = dict(doc, expect={**doc["expect"], "body": {**doc["expect"]["body"],
                                                         "table": "personx"}})
    problems = check_vector(broken)
    assert any(p.startswith("parse:") for p in problems)
    assert any(p.startswith("build:") for p in problems)
