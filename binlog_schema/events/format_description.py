"""FORMAT_DESCRIPTION_EVENT (15) and START_EVENT_V3 (1): the events that describe a file.

FDE body::

    binlog_version       2 bytes (4)
    server_version       50 bytes, NUL padded
    create_timestamp     4 bytes
    header_length        1 byte (19)
    post_header_lengths  one byte per event type (MariaDB writes a longer table)
    checksum_alg         1 byte, only from MySQL 5.6.1 / MariaDB 5.3 (0 = off, 1 = CRC32)

The CRC32 that follows (present whenever ``checksum_alg`` is, even when it says off) is the
envelope's business, as is the rule that it is computed with the in-use flag cleared.
"""

from __future__ import annotations

import construct as c

from ..primitives import Struct, _Leaf, expr_ref, read_exact


def fixed_text_parse(io, size):
    data = read_exact(io, size)
    text, _, pad = data.partition(b"\0")
    if not pad.strip(b"\0"):
        try:
            return text.decode("ascii")
        except UnicodeDecodeError:
            pass
    return data


def fixed_text_build(obj, io, size):
    data = obj.encode("ascii") if isinstance(obj, str) else bytes(obj)
    if len(data) > size:
        raise c.StringError(f"{obj!r} is longer than {size} bytes")
    io.write(data.ljust(size, b"\0"))
    return obj


def FixedText(size):
    """``size`` bytes holding NUL-padded ASCII: a ``str`` when the padding is all NUL, else the
    raw bytes (lossless)."""
    return _Leaf(fixed_text_parse, fixed_text_build, size, size=size)


def leaving_parse(io, leave):
    data = io.read()
    if len(data) < leave:
        raise c.StreamError(f"needs at least {leave} bytes, {len(data)} left")
    if leave:
        io.seek(-leave, 1)
        data = data[:-leave]
    return c.ListContainer(data)


def leaving_build(obj, io, leave):
    io.write(bytes(obj))
    return obj


def ByteListLeaving(leave):
    """The rest of the stream as a list of byte values, except the last ``leave`` bytes."""
    return _Leaf(leaving_parse, leaving_build, leave)


def fde_has_alg(server_version) -> bool:
    from . import fde_has_checksum
    if isinstance(server_version, (bytes, bytearray)):
        server_version = server_version.split(b"\0", 1)[0].decode("ascii", "replace")
    return fde_has_checksum(server_version)


class _HasAlg:
    """Expression: this FDE's server version writes the checksum-algorithm byte."""

    def __call__(self, context):
        return fde_has_alg(context.server_version)

    def __repr__(self):
        return f"{expr_ref(fde_has_alg)}(this['server_version'])"


class _AlgLen(_HasAlg):
    def __call__(self, context):
        return 1 if fde_has_alg(context.server_version) else 0

    def __repr__(self):
        return f"(1 if {super().__repr__()} else 0)"


FormatDescriptionBody = Struct(
    "binlog_version" / c.Int16ul,
    "server_version" / FixedText(50),
    "create_timestamp" / c.Int32ul,
    "header_length" / c.Int8ul,
    "post_header_lengths" / ByteListLeaving(_AlgLen()),
    "checksum_alg" / c.If(_HasAlg(), c.Int8ul),
)

StartEventV3Body = Struct(
    "binlog_version" / c.Int16ul,
    "server_version" / FixedText(50),
    "create_timestamp" / c.Int32ul,
)


def flavor_of(server_version) -> str:
    text = server_version if isinstance(server_version, str) else bytes(server_version).decode(
        "ascii", "replace")
    return "mariadb" if "mariadb" in text.lower() else "mysql"


# The 5.2.2 "WL#2325" development tree numbered the row events before XID: its FDE gives type
# 16 a 6-byte post-header (GA's XID has none). Its codes 16-22 map to GA's 19-22, 16-18.
WL2325_REMAP = {16: 19, 17: 20, 18: 21, 19: 22, 20: 16, 21: 17, 22: 18}


def numbering_of(phl) -> dict | None:
    if len(phl) == 22 and phl[15] == 6 and phl[19] == 0:
        return WL2325_REMAP
    return None


def context_from_fde(body, ctx):
    """The context an FDE sets for the events after it."""
    phl = list(body["post_header_lengths"])
    remap = numbering_of(phl)
    tm_code = 16 if remap else 19
    version = body["server_version"]
    if not isinstance(version, str):
        version = bytes(version).split(b"\0", 1)[0].decode("ascii", "replace")
    return ctx.replace(
        checksum=body.get("checksum_alg") == 1,
        post_header_lengths=phl,
        table_id_size=4 if len(phl) >= tm_code and phl[tm_code - 1] == 6 else 6,
        type_remap=remap,
        server_version=version,
        flavor=flavor_of(version),
        binlog_version=body["binlog_version"],
    )


def context_from_start_v3(body, ctx):
    version = body["server_version"]
    if not isinstance(version, str):
        version = bytes(version).split(b"\0", 1)[0].decode("ascii", "replace")
    return ctx.replace(checksum=False, post_header_lengths=None, table_id_size=6,
                       type_remap=None,
                       server_version=version, flavor="mysql",
                       binlog_version=body["binlog_version"])
