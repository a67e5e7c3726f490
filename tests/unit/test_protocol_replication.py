"""Packet framing (16 MiB pieces) and the replication packets (binlog_schema.wire.protocol): the
vectors of specs/protocol/ both ways through ``validate``'s checker, pieces at the 0xffffff
boundaries, typed errors for a connection cut short or a length over the limit, and the GTID
set text of ``stream --gtid`` as COM_BINLOG_DUMP_GTID carries it."""

from __future__ import annotations

import io
import pathlib

import construct as c
import pytest

from binlog_schema.construct_ext.errors import ConstError
from binlog_schema.format.errors import LimitError, TruncatedError
from binlog_schema.wire.protocol import framing, replication
from binlog_schema.wire.protocol.packet_vectors import check_packet_vector
from binlog_schema.wire.replication.client import mysql_gtid_set
from binlog_schema.synthetic.vector_checks import summary, validate

from ..conftest import ROOT

SPECS = pathlib.Path(__file__).resolve().parents[2] / "specs" / "protocol"


def test_every_packet_vector_passes_both_ways():
    results = validate(SPECS)
    assert all(r.ok for r in results), [r.problems for r in results if not r.ok]
    packets = {r.name for r in results if r.kind == "packet"}
    assert len(packets) >= 30
    assert "packet vector" in summary(results)


def test_a_changed_vector_fails_both_ways():
    doc = next(d for d in _docs() if d["name"] == "com-binlog-dump-mariadb-replica-position-4")
    broken = dict(doc, expect=dict(doc["expect"], server_id=doc["expect"]["server_id"] + 1))
    problems = check_packet_vector(broken)
    assert any(p.startswith("parse:") for p in problems)
    assert any(p.startswith("build:") for p in problems)


def _docs():
    import yaml
    return [d for d in yaml.safe_load_all((SPECS / "replication.yaml").read_text()) if d]


@pytest.mark.parametrize("size", [0, 1, 0xFFFFFE, 0xFFFFFF, 0xFFFFFF + 1, 2 * 0xFFFFFF])
def test_framing_splits_and_joins_at_the_boundaries(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    buf = io.BytesIO()
    nxt = framing.write_packet(buf, payload, 250)
    pieces = size // 0xFFFFFF + 1      # (an exact multiple ends with an empty piece)
    assert nxt == (250 + pieces) & 0xFF
    assert len(buf.getvalue()) == size + 4 * pieces
    buf.seek(0)
    seq, got = framing.read_packet(buf)
    assert got == payload and seq == (250 + pieces - 1) & 0xFF
    assert framing.read_packet(buf) == (None, None)


def test_a_connection_cut_inside_a_packet_is_a_typed_error():
    with pytest.raises(TruncatedError):
        framing.read_packet(io.BytesIO(b"\x05\x00\x00\x00ab"))
    with pytest.raises(TruncatedError):
        framing.read_packet(io.BytesIO(b"\x05\x00"))
    with pytest.raises(LimitError):
        framing.read_packet(io.BytesIO(b"\xff\xff\xff\x00"), max_size=1000)


def test_a_gtid_set_as_com_binlog_dump_gtid_carries_it():
    value = mysql_gtid_set("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:8,"
                           "4e11fa47-71ca-11e1-9e33-c80aa9429562:3")
    assert value["format"] == "UNTAGGED"
    assert [(s["sid"], [(i["start"], i["end"]) for i in s["intervals"]])
            for s in value["sids"]] == [
        ("3e11fa47-71ca-11e1-9e33-c80aa9429562", [(1, 6), (8, 9)]),
        ("4e11fa47-71ca-11e1-9e33-c80aa9429562", [(3, 4)])]
    data = replication.ComBinlogDumpGtid.build({
        "flags": replication.BINLOG_THROUGH_GTID, "server_id": 9, "file": "", "position": 4,
        "gtid_set": value})
    back = replication.ComBinlogDumpGtid.parse(data)
    assert back.gtid_set.n_sids == 2 and back.gtid_set.sids[0].intervals[1].end == 9
    tagged = mysql_gtid_set("3e11fa47-71ca-11e1-9e33-c80aa9429562:etl:1-2")
    assert tagged["format"] == "TAGGED" and tagged["sids"][0]["tag"] == "etl"
    assert replication.ComBinlogDumpGtid.parse(replication.ComBinlogDumpGtid.build({
        "flags": replication.BINLOG_THROUGH_GTID, "server_id": 9, "file": "", "position": 4,
        "gtid_set": tagged})).gtid_set.sids[0].tag == "etl"


@pytest.mark.parametrize("argv", [["--position", "5"], ["--gtid", "0-1-1", "--file", "f.000001"],
                                  ["--gtid", "0-1-1", "--position", "4"]])
def test_stream_refuses_start_options_that_disagree(argv, capsys):
    from binlog_schema.cli import main
    assert main(["stream", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("binlog-schema stream: ") and "Traceback" not in err


def test_compiled_stream_packet_and_header_agree_with_the_declarations():
    """The compiled units the hot paths run (``stream_packet``, ``packet_header``) parse and
    build what the declarations do, on every stream-packet vector and at the header's edges;
    a packet without the semi-sync header the context asks for fails in both."""
    import yaml

    from binlog_schema.format import compiled
    parse = compiled.unit("stream_packet.parse")["parse"]
    build = compiled.unit("stream_packet.build")["build"]
    docs = [d for d in yaml.safe_load_all(
        (ROOT / "specs" / "protocol" / "replication.yaml").read_text(encoding="utf-8"))
        if d and d.get("packet") == "BinlogStreamPacket"]
    assert len(docs) >= 4
    for doc in docs:
        semi = doc["expect"]["semi_sync"] is not None
        data = bytes.fromhex(doc["hex"])
        this = {"_params": {"semi_sync": semi}}
        want = replication.BinlogStreamPacket.parse(data, semi_sync=semi)
        got = parse(io.BytesIO(data), this)
        assert got["event"] == want.event and bool(got["semi_sync"]) == semi
        out = io.BytesIO()
        build(dict(got), out, this)
        assert out.getvalue() == data
    with pytest.raises(c.ConstError):
        replication.BinlogStreamPacket.parse(b"\x00abc", semi_sync=True)
    with pytest.raises(ConstError):
        parse(io.BytesIO(b"\x00abc"), {"_params": {"semi_sync": True}})
    hparse = compiled.unit("packet_header.parse")["parse"]
    hbuild = compiled.unit("packet_header.build")["build"]
    for length, seq in ((0, 0), (1, 255), (0xFFFFFE, 7), (0xFFFFFF, 1)):
        head = framing.PacketHeader.build({"length": length, "sequence_id": seq})
        assert hparse(io.BytesIO(head), {"_params": {}}) == {"length": length,
                                                            "sequence_id": seq}
        out = io.BytesIO()
        hbuild({"length": length, "sequence_id": seq}, out, {"_params": {}})
        assert out.getvalue() == head
