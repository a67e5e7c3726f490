"""The stream layer: files read event by event with their context, the options a
mysqlbinlog user expects, bad input, and writing an edited file back."""

import io
import zlib

import pytest

from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import build_event
from binlog_schema.format.errors import ChecksumError, FormatError, LimitError
from binlog_schema.format.stream import BinlogReader, read_events
from binlog_schema.format.writer import BinlogWriter

FDE = {"binlog_version": 4, "server_version": "8.0.40", "create_timestamp": 0,
       "header_length": 19, "post_header_lengths": [0] * 41, "checksum_alg": 1}


def header(code, ts=1):
    return {"timestamp": ts, "type_code": code, "server_id": 1, "log_pos": None, "flags": []}


def table_map(i, db="db"):
    return {"header": header(19, i), "body": {
        "table_id": 100 + i, "flags": ["BIT_LEN_EXACT"], "database": db, "table": f"t{i}",
        "column_types": ["LONG", "VARCHAR"], "column_metadata": [None, {"max_length": 80}],
        "null_bitmap": [False, True], "optional_metadata": []}}


def make_file(n=5, fde=FDE) -> bytes:
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write({"header": header(15), "body": fde})
    for i in range(n):
        w.write(table_map(i))
    return out.getvalue()


def offsets(data):
    return [r.offset for r in BinlogReader(data, decode=False)]


def test_reads_events_with_offsets_and_context():
    data = make_file()
    recs = read_events(data)
    assert [r.type_name for r in recs] == ["FORMAT_DESCRIPTION_EVENT"] + ["TABLE_MAP_EVENT"] * 5
    assert recs[1].ctx.checksum and recs[1].ctx.server_version == "8.0.40"
    for r in recs:
        assert r.value["header"]["log_pos"] == r.offset + r.size
        assert data[r.offset:r.offset + r.size] == r.raw


def test_start_stop_positions_and_types():
    data = make_file()
    offs = offsets(data)
    picked = read_events(data, start=offs[2], stop=offs[5])
    assert [r.offset for r in picked] == offs[2:5]
    assert picked[0].ctx.checksum  # the FDE was still read for the context
    only = read_events(data, types=["FORMAT_DESCRIPTION"])
    assert [r.type_code for r in only] == [15]
    assert [r.type_code for r in read_events(data, types=[19])] == [19] * 5


def test_crc_corruption_is_a_typed_error_and_can_be_skipped():
    data = bytearray(make_file())
    offs = offsets(bytes(data))
    data[offs[3] + 25] ^= 0x40  # inside the third TABLE_MAP's body
    with pytest.raises(ChecksumError) as e:
        read_events(bytes(data))
    assert e.value.offset == offs[4] - 4  # the CRC field of that event
    recs = read_events(bytes(data), skip_errors=True)
    assert [r.offset for r in recs] == offs
    assert [r.error is not None for r in recs] == [False, False, False, True, False, False]


def test_truncated_tail_is_reported_after_all_good_events():
    data = make_file()
    offs = offsets(data)
    reader = BinlogReader(data[:-7])
    recs = list(reader)
    assert [r.offset for r in recs] == offs[:-1]
    assert reader.tail.offset == offs[-1]
    assert reader.tail.need - reader.tail.have == 7


def test_bad_magic_and_lying_sizes():
    with pytest.raises(FormatError) as e:
        read_events(b"\xfebim" + make_file()[4:])
    assert e.value.offset == 0
    data = bytearray(make_file())
    off = offsets(bytes(data))[2]
    data[off + 9:off + 13] = (1 << 31).to_bytes(4, "little")
    with pytest.raises(LimitError) as e:
        read_events(bytes(data))
    assert e.value.offset == off + 9
    recs = read_events(bytes(data), skip_errors=True)  # (resynchronises on the next event)
    skipped = [r for r in recs if r.gap is not None]
    assert [r.gap for r in skipped] == [(off, offsets(make_file())[3])]
    assert isinstance(skipped[0].error, LimitError) and skipped[0].type_name == "SKIPPED"
    assert [r.offset for r in recs if r.gap is None] == \
        [o for o in offsets(make_file()) if o != off]
    assert_tiles(recs, len(data))
    assert len(read_events(bytes(data), skip_errors=True, recover=False)) == 3  # (stops)
    data[off + 9:off + 13] = (5).to_bytes(4, "little")
    with pytest.raises(FormatError):
        read_events(bytes(data))


def test_unknown_fde_version_is_a_typed_error():
    with pytest.raises(FormatError) as e:
        read_events(make_file(fde={**FDE, "binlog_version": 5}))
    assert e.value.offset == 4 + 19 and "version 5" in str(e.value)


class CountingFile(io.RawIOBase):
    """A file of many events, generated lazily; remembers the largest read asked of it."""

    def __init__(self, events: int):
        self.chunks = [make_file(0)]
        ev = build_event(table_map(1), Context(offset=0))
        self.event = ev
        self.left = events
        self.buf = self.chunks[0]
        self.largest = 0
        self.reads = 0

    def readable(self):
        return True

    def readinto(self, b):
        self.reads += 1
        self.largest = max(self.largest, len(b))
        while len(self.buf) < len(b) and self.left:
            self.buf += self.event
            self.left -= 1
        n = min(len(b), len(self.buf))
        b[:n] = self.buf[:n]
        self.buf = self.buf[n:]
        return n


def test_reading_is_streaming_not_whole_file():
    from binlog_schema.format.stream import _BLOCK
    f = CountingFile(40000)  # about 2.6 MB: several of the reader's blocks
    n = sum(1 for _ in BinlogReader(f, decode=False))
    assert n == 40001
    assert f.reads > 2
    assert f.largest <= _BLOCK  # never asked for more than one block at a time


def test_edit_and_write_back():
    data = make_file()
    out = io.BytesIO()
    w = BinlogWriter(out)
    for rec in BinlogReader(data):
        if rec.type_code == 15:
            w.write_record(rec)
            continue
        value = rec.value
        if value["body"]["table"] == "t2":
            value["body"]["database"] = "a_much_longer_database_name"
        w.write_record(rec, value)
    new = out.getvalue()
    assert len(new) == len(data) + len("a_much_longer_database_name") - len("db")
    recs = read_events(new)  # CRCs and positions valid
    assert [r.value["body"]["database"] for r in recs[1:]] == \
        ["db", "db", "a_much_longer_database_name", "db", "db"]
    for r in recs:
        assert r.value["header"]["log_pos"] == r.offset + r.size
    crc_ok = [zlib.crc32(r.raw[:-4]) == int.from_bytes(r.raw[-4:], "little") for r in recs[1:]]
    assert all(crc_ok)


def test_relay_log_positions_are_kept():
    value = table_map(1)
    value["header"]["log_pos"] = 123456  # a master's position, not ours
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write({"header": header(15), "body": FDE})
    w.write(value)
    rec = read_events(out.getvalue())[1]
    out2 = io.BytesIO()
    w2 = BinlogWriter(out2)
    w2.write({"header": header(15), "body": FDE})
    w2.write_record(rec)
    assert read_events(out2.getvalue())[1].value["header"]["log_pos"] == 123456


def test_a_writer_places_events_without_a_context_per_event(monkeypatch):
    # each event is built at the writer's offset in one context copy the writer moves (a
    # copy per event dropped the compiled code's caches: a tenth of flashback's time)
    copies = []
    replace = Context.replace
    monkeypatch.setattr(Context, "replace",
                        lambda self, **kw: copies.append(kw) or replace(self, **kw))
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write({"header": header(15), "body": FDE})
    made = len(copies)
    for i in range(5):
        w.write(table_map(i + 1))
    assert len(copies) - made == 1
    rec = read_events(out.getvalue())[2]
    made = len(copies)
    w.write_kept(rec)
    assert len(copies) == made
    recs = read_events(out.getvalue())
    assert [r.error for r in recs] == [None] * 7
    assert [r.value["header"]["log_pos"] for r in recs] == [r.offset + r.size for r in recs]


def test_a_repeated_body_is_built_once_and_framed_as_write_builds_it(monkeypatch):
    """write_repeated (flashback's BEGIN of each MariaDB transaction): the event is the one
    write gives, byte for byte (its own time, place and CRC32), and a body is built once."""
    from binlog_schema.format import writer as writer_module
    events = [{"header": {**header(2, 100 + i), "flags": ["SUPPRESS_USE"]},
               "body": {"thread_id": 5, "exec_time": 0, "error_code": 0,
                        "post_header_extra": None, "status_vars": [], "database": "",
                        "query": "BEGIN"}} for i in range(3)]
    events.insert(2, table_map(1))
    plain, repeated = io.BytesIO(), io.BytesIO()
    w, r = BinlogWriter(plain), BinlogWriter(repeated)
    for x in (w, r):
        x.write({"header": header(15), "body": FDE})
    built = []
    build = writer_module.build_event
    monkeypatch.setattr(writer_module, "build_event",
                        lambda value, ctx=None: built.append(value) or build(value, ctx))
    for e in events:
        w.write(e)
    made = len(built)
    for e in events:
        if e["header"]["type_code"] == 2:
            r.write_repeated(e, repr(e["body"]))
        else:
            r.write(e)
    assert repeated.getvalue() == plain.getvalue()
    assert len(built) - made == 2   # (the first BEGIN and the table map)
    recs = read_events(repeated.getvalue())
    assert [rec.error for rec in recs] == [None] * 5
    assert [rec.value["header"]["timestamp"] for rec in recs[1:]] == [100, 101, 1, 102]


def test_recovery_resynchronises_after_a_corrupted_event():
    data = bytearray(make_file(8))
    offs = offsets(bytes(data))
    bad = offs[4]
    data[bad + 9:bad + 13] = (7).to_bytes(4, "little")  # its size lies: framing lost
    data[bad + 30] ^= 0xFF
    reader = BinlogReader(bytes(data), recover=True)
    recs = list(reader)
    good = [r.offset for r in recs if r.error is None]
    assert good == [o for o in offs if o != bad]  # every good event, before and after
    gaps = [r.gap for r in recs if r.gap is not None]
    assert gaps == [(bad, offs[5])] and reader.gaps == gaps


def test_recovery_after_a_crc_mismatch_and_a_garbage_run():
    from binlog_schema.format.errors import ChecksumError
    data = bytearray(make_file(6))
    offs = offsets(bytes(data))
    data[offs[2] + 25] ^= 0x01  # CRC mismatch, size intact
    junk = bytes(range(200)) * 3
    data = data[:offs[4]] + junk + data[offs[4]:]  # garbage between two events
    recs = list(BinlogReader(bytes(data), recover=True))
    gaps = [r.gap for r in recs if r.gap is not None]
    assert gaps == [(offs[4], offs[4] + len(junk))]
    # the event whose CRC32 fails stands (the next event confirms its size), with its error
    bad = next(r for r in recs if r.offset == offs[2])
    assert isinstance(bad.error, ChecksumError) and len(bad.raw) == offs[3] - offs[2]
    assert len([r for r in recs if r.error is None]) == len(offs) - 1
    assert_tiles(recs, len(data))


def assert_tiles(recs, size):
    """The top-level records cover [4, size) in order, without gap or overlap."""
    pos = 4
    for r in recs:
        if r.parent_offset is not None:
            continue
        assert r.offset == pos, (r.offset, pos)
        pos += (r.gap[1] - r.gap[0]) if r.gap is not None else len(r.raw)
    assert pos == size


def test_limits_give_typed_errors_quickly():
    import time
    from binlog_schema.format.event_codec import parse_event
    from binlog_schema.format.errors import TruncatedError
    ctx = Context(checksum=False)
    head = bytes.fromhex("00000000" "13" "01000000") + (0).to_bytes(4, "little") + \
        (0).to_bytes(4, "little") + b"\0\0"

    def event(body):
        size = (19 + len(body)).to_bytes(4, "little")
        return head[:9] + size + head[13:] + body
    start = time.perf_counter()
    # a 2**64 - 1 packed length (the database name's)
    with pytest.raises(TruncatedError) as e:
        parse_event(event(bytes(8) + b"\xfe" + b"\xff" * 8 + b"db\0"), ctx)
    assert e.value.path == "body.database"
    # a TABLE_MAP claiming 10**6 columns: refused before reading them
    with pytest.raises(LimitError) as e:
        parse_event(event(bytes(6) + b"\x01\x00\x01d\x00\x01t\x00" + b"\xfd\x40\x42\x0f"), ctx)
    assert "1000000" in str(e.value) and e.value.path == "body.column_count"
    assert parse_event(event(bytes(6) + b"\x01\x00\x01d\x00\x01t\x00\x01\x03"),
                       ctx)["body"]["column_count"] == 1
    with pytest.raises(LimitError):  # the limit is an option
        parse_event(event(bytes(6) + b"\x01\x00\x01d\x00\x01t\x00\x02\x03\x03"),
                    Context(checksum=False, max_columns=1))
    # a 4 GiB event size in a file
    data = bytearray(make_file(1))
    second = offsets(bytes(data))[1]
    data[second + 9:second + 13] = (0xFFFFFFFF).to_bytes(4, "little")
    with pytest.raises(LimitError):
        read_events(bytes(data))
    assert time.perf_counter() - start < 2


def test_decompression_bombs_are_refused():
    import zstandard
    from binlog_schema.format.facts.compression import mariadb_compress, mariadb_uncompress
    from binlog_schema.format.facts.compression import payload_body, payload_events_bytes
    from binlog_schema.construct_ext.errors import LimitExceeded
    bomb = bytes(64 << 20)  # 64 MiB of zeros compress to a few KiB
    body = payload_body(bomb)
    assert len(body["payload"]) < 100_000
    with pytest.raises(LimitExceeded):
        payload_events_bytes(body, limit=1 << 20)
    lying = dict(body, fields=[f if f["type"] != "UNCOMPRESSED_SIZE" else
                               {"type": "UNCOMPRESSED_SIZE", "value": 10} for f in body["fields"]])
    with pytest.raises(LimitExceeded):  # a size field that lies does not help
        payload_events_bytes(lying, limit=1 << 20)
    packed = mariadb_compress(bytes(8 << 20))
    with pytest.raises(LimitExceeded):
        mariadb_uncompress(packed, limit=1 << 20)
    assert zstandard  # the payload codec really is zstd
