"""The binlog file format as Kaitai Struct, exported from the declarations.

:func:`export` gives ``specs/binlog.ksy`` (``scripts/make_ksy.py`` writes it): construct's
``export_ksy()`` of :data:`FILE`, whose events are
:data:`binlog_schema.format.events.envelope.Event` (every field comes from the declarations
in :mod:`binlog_schema.format.events`, through the Kaitai emitters of their primitives,
:mod:`binlog_schema.construct_ext.kaitai`). This module gives Kaitai the rules the
declarations take from the context and from :mod:`..format.facts.flavor`, as Kaitai
expressions.

What the description says:

* the file: the magic, then events to the end of the file;
* each event: the 19-byte common header; the body, switched on the type code (the
  WL#2325 5.2.2 development tree's own numbering mapped to the standard codes, from its
  FORMAT_DESCRIPTION, as :func:`..format.facts.flavor.numbering_of` does); the CRC32 when
  there is one;
* the context an event is read in: the FORMAT_DESCRIPTION_EVENT (or START_EVENT_V3) in
  force, found through the event param ``ctx_index`` (its index in ``events``, -1 before
  any), which each event passes on to the next. From it: whether events end in a CRC32
  (the FDE's ``checksum_alg`` is 1), the post-header lengths (QUERY's status block, ROTATE's
  position, TABLE_MAP's 4- or 6-byte table id), the binlog version;
* the FORMAT_DESCRIPTION's own CRC32 and checksum-algorithm byte: present when its server
  version is MySQL 5.6.1+ or MariaDB 5.3+ (:func:`..format.facts.flavor.fde_has_checksum`);
  the version is read as numbers by the ``server_version`` type;
* bodies expressed field by field: FORMAT_DESCRIPTION, START_EVENT_V3, QUERY, ROTATE, XID,
  TABLE_MAP (column types, the per-column metadata block, the null bitmap), MySQL's GTID and
  ANONYMOUS_GTID, MariaDB's GTID. Every other type's body is bytes (``body`` is the body's
  bytes when the type code has no case).

What Kaitai cannot say, and is kept as bytes (each with a ``doc``) or left out:

* QUERY's status variables: a list of (code, value) items that ends at a code without a
  known layout, the rest of the block raw: kept as the block's bytes;
* TABLE_MAP's optional metadata (TLVs to the end of the body): kept as bytes;
* text is bytes: the library gives a ``str`` when the bytes are valid UTF-8 and the bytes
  otherwise; Kaitai's ``str`` would fail on the second;
* a CRC32 is read, not verified (Kaitai has no CRC32); the FORMAT_DESCRIPTION's is
  computed with its in-use flag cleared;
* "MariaDB" in the server version: Kaitai has no substring search; the description
  looks for "-MariaDB" right after the version number (where every MariaDB server
  writes it), the library for "mariadb" anywhere. It matters only for MariaDB 5.3-5.5;
* a server version not of the form "N.N.N..." (the library reads it as 0.0.0): Kaitai
  cannot turn it into numbers and fails;
* a QUERY whose status block runs past the body (the servers reject it): the body is
  ``raw``, as in the library, by the same rule;
* bytes the body's layout leaves unread (the library's ``trailing``): not shown;
* limits (column counts, sizes) and what the library refuses as not the servers' own
  (padding not zero, a packed integer not in its shortest form): not checked;
* a file cut inside its last event: Kaitai fails at that event (the events before it are
  read); binlog v1 (MySQL 3.23, 13-byte headers) is not described.
"""

from __future__ import annotations

import construct as c

from ..construct_ext import kaitai
from ..construct_ext.kaitai import CONTEXT, ENUM_NAMES, EXPRESSIONS, LEAVES, WRAPPERS
from ..format.scanning import MAGIC
from ..format.facts import column_metadata as cm
from ..format.facts import flavor, post_header
from ..format.facts.codes import (ANONYMOUS_GTID_LOG_EVENT, FORMAT_DESCRIPTION_EVENT,
                                  GTID_LOG_EVENT, MARIA_GTID_EVENT, MARIADB_ONLY_KINDS,
                                  QUERY_EVENT, ROTATE_EVENT, START_EVENT_V3, TABLE_MAP_EVENT,
                                  XID_EVENT, type_name)
from ..format.facts.framing import HEADER_SIZE

# the bodies described field by field (every other body is its bytes)
EXPRESSED = (START_EVENT_V3, QUERY_EVENT, ROTATE_EVENT, FORMAT_DESCRIPTION_EVENT, XID_EVENT,
             TABLE_MAP_EVENT, GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, MARIA_GTID_EVENT)

ENUM_NAMES.update({"TYPES": "column_type"})
CONTEXT.update({"table_id_size": "table_id_size"})

# ---------------------------------------------------------------------------- server versions

SERVER_VERSION_KSY = {
    "doc": "The numbers at the start of a server version (\"8.0.33-log\"), read from its "
           "50-byte field, and the FORMAT_DESCRIPTION rule that follows from them "
           "(binlog_schema.format.facts.flavor.fde_has_checksum). A patch number of up to 3 "
           "digits.",
    "seq": [
        {"id": "major", "type": "str", "encoding": "ASCII", "terminator": 0x2e,
         "eos-error": False},
        {"id": "minor", "type": "str", "encoding": "ASCII", "terminator": 0x2e,
         "eos-error": False},
        {"id": "patch_digits", "type": "u1", "repeat": "until",
         "repeat-until": "_ < 0x30 or _ > 0x39",
         "doc": "the patch number's digits, and the byte after them"},
        {"id": "suffix", "type": "str", "encoding": "ISO-8859-1", "terminator": 0,
         "eos-error": False},
    ],
    "instances": {
        "patch": {"value": "patch_digits.size < 2 ? 0 : (patch_digits.size == 2 ? "
                           "patch_digits[0] - 48 : (patch_digits.size == 3 ? "
                           "(patch_digits[0] - 48) * 10 + patch_digits[1] - 48 : "
                           "(patch_digits[0] - 48) * 100 + (patch_digits[1] - 48) * 10 + "
                           "patch_digits[2] - 48))"},
        "mariadb": {"value": "patch_digits[patch_digits.size - 1] == 0x2d and "
                             "suffix.length >= 7 and suffix.substring(0, 7) == \"MariaDB\"",
                    "doc": "\"-MariaDB\" right after the number (the library: \"mariadb\" "
                           "anywhere, in any case)"},
        "has_checksum": {"value": "major.to_i > 5 or (major.to_i == 5 and (minor.to_i > 6 or "
                                  "(minor.to_i == 6 and patch >= 1) or "
                                  "(mariadb and minor.to_i >= 3)))",
                         "doc": "MySQL 5.6.1+ and MariaDB 5.3+ end their FORMAT_DESCRIPTION "
                                "with the checksum-algorithm byte and a CRC32"},
    },
}


def _version_of(k, path) -> str:
    """An instance of the current type: the server version field at ``path`` read as
    numbers (at its static offset)."""
    at = k.offset_of(path)
    name = f"{path[-1]}_number"
    k.type("server_version", SERVER_VERSION_KSY)
    k.here.instances.setdefault(name, {"pos": at, "size": 50, "type": "server_version"})
    return name


def _has_checksum_ksy(k, *path):
    return f"{_version_of(k, path)}.has_checksum"


def _alg_len_ksy(k, *path):
    return f"({_version_of(k, path)}.has_checksum ? 1 : 0)"


EXPRESSIONS.update({flavor.fde_has_checksum: _has_checksum_ksy,
                    flavor.fde_alg_len: _alg_len_ksy})

# ---------------------------------------------------------------------------- post-header lengths


def _post_header_length(k, code) -> str:
    """post_header.post_header_length: the FDE's entry for the code the file stores, else by
    the binlog version; an instance of the event type (``post_header_length_<code>``)."""
    by_version = post_header.POST_HEADER_BY_VERSION[code]
    v4, old, v1 = by_version.v4, by_version.v3, by_version.v1
    scope = k.context_scope()
    file_code = str(code)
    inverse = {v: f for f, v in flavor.WL2325_REMAP.items()}
    if code in inverse:
        file_code = f"(wl2325 ? {inverse[code]} : {code})"
    phl = "ctx_fde.post_header_lengths"
    by_version = f"(binlog_version >= 4 ? {v4} : (binlog_version > 1 ? {old} : " \
                 f"{old if v1 is None else v1}))"
    value = (f"ctx_is_fde and {phl}.size >= {file_code} ? {phl}[{file_code} - 1] : "
             f"{by_version}")
    name, n = f"post_header_length_{code}", 2
    while scope.instances.get(name, {"value": value})["value"] != value:
        name, n = f"post_header_length_{code}_{n}", n + 1
    scope.instances[name] = {"value": value, "doc": (
        f"the post-header length of type {code}: the FORMAT_DESCRIPTION's, else by the "
        "binlog version")}
    return k.up(scope) + name


def _at_least(k, code, n):
    return f"({_post_header_length(k, code)} >= {n})"


def _extra(k, code, base):
    n = _post_header_length(k, code)
    return f"({n} > {base} ? {n} - {base} : 0)"


def _has_extra(k, code, base):
    return f"({_post_header_length(k, code)} > {base})"


def _has_status_vars(k, code):
    return f"({_post_header_length(k, code)} >= {post_header.POST_HEADER_BY_VERSION[code].v4})"


def _query_extra(k, code):
    """post_header.query_extra: the bytes beyond QUERY's (v4 or v3) and the ``known`` bytes
    the event type adds to them."""
    query = post_header.POST_HEADER_BY_VERSION[QUERY_EVENT]
    v4 = post_header.POST_HEADER_BY_VERSION[code].v4
    n = _post_header_length(k, code)
    used = f"({v4 - query.v4} + ({n} >= {v4} ? {query.v4} : {query.v3}))"
    return f"({n} > {used} ? {n} - {used} : 0)"


def _has_query_extra(k, code):
    return f"({_query_extra(k, code)} > 0)"


def _status_overrun(k, code):
    """post_header.query_status_overrun: status_vars_len runs past the body."""
    k.here.instances["stored_status_vars_len"] = {
        "pos": 11, "type": "u2le", "if": "_io.size >= 13",
        "doc": "status_vars_len as stored (for the servers' corruption rule)"}
    return (f"({_has_status_vars(k, code)} and _io.size >= 13 and "
            f"stored_status_vars_len > _io.size - {_post_header_length(k, code)})")


EXPRESSIONS.update({
    post_header.post_header_at_least: _at_least,
    post_header.post_header_extra: _extra,
    post_header.has_post_header_extra: _has_extra,
    post_header.query_extra: _query_extra,
    post_header.has_query_extra: _has_query_extra,
    post_header.has_status_vars: _has_status_vars,
    post_header.query_status_overrun: _status_overrun,
})

# ---------------------------------------------------------------------------- column metadata


def _field_ksy(k, name, width):
    t = {1: "u1", 2: "u2le", 3: "b24le", 4: "u4le"}[width]  # (b24le: every target reads it)
    return {"type": k.type(f"column_meta_{name}_{width}",
                           {"seq": [{"id": name, "type": t}]})}


STRING_META_KSY = {
    "doc": "STRING, VAR_STRING, ENUM, SET: byte 0 the real type, byte 1 the length (or "
           "ENUM/SET's pack length); lengths over 255 keep bits 8-9, inverted, in bits 4-5 "
           "of the real type (Bug#37426)",
    "seq": [{"id": "b0", "type": "u1"}, {"id": "b1", "type": "u1"}],
    "instances": {
        "real_type": {"value": "(b0 & 0x30) != 0x30 ? b0 | 0x30 : b0",
                      "enum": "column_type"},
        "length": {"value": "(b0 & 0x30) != 0x30 ? b1 | (((b0 & 0x30) ^ 0x30) << 4) : b1"},
    },
}

BIT_META_KSY = {
    "doc": "BIT(n): byte 0 = n % 8, byte 1 = n / 8",
    "seq": [{"id": "last_bits", "type": "u1"}, {"id": "bytes", "type": "u1"}],
    "instances": {"bits": {"value": "bytes * 8 + last_bits"}},
}


def _string_meta_ksy(k):
    return {"type": k.type("column_meta_string", STRING_META_KSY)}


def _bit_meta_ksy(k):
    return {"type": k.type("column_meta_bit", BIT_META_KSY)}


def _unknown_ksy(k):
    return {"size-eos": True, "doc": "a type without a known metadata layout: the rest of "
                                     "the block"}


def _colmeta_ksy(k, sub, types):
    """One entry per column, a type per column type (param ``column_type``)."""
    types_ref = k.expr(types)
    enum = k.enum(cm.TYPES)
    switch = kaitai.unwrap(sub)

    def fill():
        cases = {}
        for key, sc in switch.cases.items():
            cases[f"{enum}::{key.lower()}"] = k.case_type(sc, key.lower())
        cases["_"] = k.type("column_meta_unknown",
                            {"seq": [{"id": "raw", **_unknown_ksy(k)}]})
        return [{"id": "meta", "type": {"switch-on": "column_type", "cases": cases}}]
    name = k.nested("column_meta", fill, doc="the metadata of one column, by its type",
                    params=[{"id": "column_type", "type": "u1", "enum": enum}])
    return {"type": f"{name}({types_ref}[_index])", "repeat": "expr",
            "repeat-expr": f"{types_ref}.size"}


LEAVES.update({cm.field_parse: _field_ksy, cm.string_meta_parse: _string_meta_ksy,
               cm.bit_meta_parse: _bit_meta_ksy, cm.unknown_parse: _unknown_ksy})
WRAPPERS.update({cm.colmeta_parse: _colmeta_ksy})

# ---------------------------------------------------------------------------- the event


def _body_name(code: int) -> str:
    name = type_name(code).lower().replace("_event", "")
    return ("mariadb_" if code in MARIADB_ONLY_KINDS else "") + name + "_body"


def _switch_cases(k, bodies) -> dict:
    cases = {}
    for code in EXPRESSED:
        body = bodies.cases.get(code)
        if body is None:
            continue
        name = k.done.get(id(body))
        if name is None:
            name = k.done[id(body)] = k.case_type(body, _body_name(code), bounded=True)
        cases[code] = name
    return cases


def _kind_ksy() -> str:
    """The standard type code: WL#2325's numbering mapped (flavor.WL2325_REMAP)."""
    expr = "header.type_code"
    for stored, standard in sorted(flavor.WL2325_REMAP.items(), reverse=True):
        expr = f"(header.type_code == {stored} ? {standard} : {expr})"
    return f"wl2325 ? {expr} : header.type_code"


def event_type(envelope, gen) -> str:
    """The ``event`` type: header, body by kind, CRC32; the context instances."""
    k = kaitai.state(gen)
    if "event" in gen.types:
        return "event"
    fde, v3 = _body_name(FORMAT_DESCRIPTION_EVENT), _body_name(START_EVENT_V3)

    def fill():
        k.here.context = True
        k.current = "header"
        header = k.struct_type(envelope.header, "common_header")
        cases = _switch_cases(k, envelope.subcon)
        size = f"header.event_size - {HEADER_SIZE} - checksum_size"
        k.here.instances.update(_event_instances(fde, v3, cases))
        return [
            {"id": "header", "type": header},
            {"id": "body", "size": size, "type": {"switch-on": "kind", "cases": cases},
             "doc": "by the standard type code; the body's bytes for a type without a case"},
            {"id": "checksum", "type": "u4le", "if": "checksum_size == 4",
             "doc": "CRC32 of the header and body (the FORMAT_DESCRIPTION's with its "
                    "in-use flag cleared): read, not verified"},
        ]
    return k.nested("event", fill, doc=(
        "One event: header, body, CRC32. ctx_index: the index in _root.events of the "
        "FORMAT_DESCRIPTION_EVENT or START_EVENT_V3 in force (-1 before any)."),
        params=[{"id": "ctx_index", "type": "s4"}])


def _event_instances(fde: str, v3: str, cases: dict) -> dict:
    tm = TABLE_MAP_EVENT
    inverse = {v: f for f, v in flavor.WL2325_REMAP.items()}
    return {
        "kind": {"value": _kind_ksy(),
                 "doc": "the standard type code (WL#2325's 5.2.2 numbering mapped)"},
        "is_context": {"value": f"kind == {FORMAT_DESCRIPTION_EVENT} or "
                                f"kind == {START_EVENT_V3}",
                       "doc": "this event sets the context of the events after it"},
        "ctx": {"value": "_root.events[ctx_index]", "if": "ctx_index >= 0",
                "doc": "the FORMAT_DESCRIPTION_EVENT or START_EVENT_V3 in force"},
        "ctx_is_fde": {"value": f"ctx_index >= 0 and ctx.header.type_code == "
                                f"{FORMAT_DESCRIPTION_EVENT}",
                       "doc": "(15 and 1 are the same in every numbering)"},
        "ctx_fde": {"value": f"ctx.body.as<{fde}>", "if": "ctx_is_fde"},
        "ctx_v3": {"value": f"ctx.body.as<{v3}>", "if": "ctx_index >= 0 and not ctx_is_fde"},
        "ctx_checksum": {"value": "ctx_is_fde and ctx_fde.server_version_number.has_checksum "
                              "and ctx_fde.checksum_alg == 1",
                     "doc": "events end in a CRC32 (the FDE in force says algorithm 1)"},
        "binlog_version": {"value": "ctx_index < 0 ? 4 : (ctx_is_fde ? ctx_fde.binlog_version"
                                    " : ctx_v3.binlog_version)"},
        "wl2325": {"value": f"ctx_is_fde and ctx_fde.post_header_lengths.size == "
                            f"{max(flavor.WL2325_REMAP)} and "
                            f"ctx_fde.post_header_lengths[{inverse[tm] - 1}] == 6 and "
                            f"ctx_fde.post_header_lengths[{inverse[XID_EVENT] - 1}] == 0",
                   "doc": "the file numbers its types as the 5.2.2 WL#2325 tree did "
                          "(flavor.numbering_of)"},
        "table_id_size": {"value": f"ctx_is_fde and ctx_fde.post_header_lengths.size >= "
                                   f"(wl2325 ? {inverse[tm]} : {tm}) and "
                                   f"ctx_fde.post_header_lengths[(wl2325 ? {inverse[tm]} : "
                                   f"{tm}) - 1] == 6 ? 4 : 6",
                          "doc": "TABLE_MAP's table id: 4 bytes when its post-header is 6"},
        "fde_version": {"pos": "_io.pos + 2", "size": 50, "type": "server_version",
                        "if": f"kind == {FORMAT_DESCRIPTION_EVENT}",
                        "doc": "a FORMAT_DESCRIPTION's server version, read while its body "
                               "is sized (the body starts where the stream is then)"},
        "checksum_size": {"value": f"kind == {FORMAT_DESCRIPTION_EVENT} ? "
                                   "(fde_version.has_checksum ? 4 : 0) : (ctx_checksum ? 4 : 0)",
                          "doc": "an FDE's by its own server version, others' by the "
                                 "context"},
    }


# ---------------------------------------------------------------------------- the file


class FileLayout(c.Construct):
    """The file, for the KSY export only (reading files is :class:`~binlog_schema.format.stream.
    BinlogReader`'s): the magic, then events, each read in the context the one before it
    passes on."""

    def __init__(self, event):
        super().__init__()
        self.event = event

    def _emitseq(self, ksy, bitwise):
        k = kaitai.state(ksy)
        k.scopes.append(kaitai.Scope("binlog", struct=False, bounded=True))
        try:
            event = self.event._emitprimitivetype(ksy, bitwise)
        finally:
            k.scopes.pop()
        passed = ("_index == 0 ? -1 : (events[_index - 1].is_context ? _index - 1 : "
                  "events[_index - 1].ctx_index)")
        return [{"id": "magic", "contents": list(MAGIC)},
                {"id": "events", "type": f"{event}({passed})", "repeat": "eos"}]


META = {
    "id": "binlog",
    "title": "MySQL and MariaDB binary log (binlog and relay log files)",
    "file-extension": ["000001"],
    "license": "MIT",
    "ks-version": "0.11",
    "endian": "le",
    "bit-endian": "le",
}


def export() -> str:
    """The .ksy text: construct's ``export_ksy()`` of the file layout, with the meta and
    docs Kaitai wants; the same text on every run."""
    import yaml
    from ..format.events.envelope import Event
    text = FileLayout(Event).export_ksy(schemaname="binlog")
    spec = yaml.safe_load(text)
    out = {"meta": META, "doc": __doc__.strip() + "\n", "seq": spec["seq"]}
    if spec.get("instances"):
        out["instances"] = spec["instances"]
    out["types"] = spec["types"]
    out["enums"] = spec["enums"]
    header = ("# Generated by scripts/make_ksy.py from the declarations in "
              "binlog_schema/format/events: do not edit.\n")
    return header + yaml.safe_dump(out, sort_keys=False, width=96, allow_unicode=True)
