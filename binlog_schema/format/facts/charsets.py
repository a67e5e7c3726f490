"""Character sets and collations of MySQL and MariaDB: the one table every decoder (row values,
ENUM/SET member names) and the fixtures use.

- **collation id -> character set**: every id of MariaDB 10.11 (NOPAD 1024+, uca1400 and
  _mysql561 forms included), generated from a real server into :mod:`.charset_data`, and
  MySQL's own ids (the ``utf8mb4_*_0900_*`` family, ``gb18030``), listed here. MySQL shares
  MariaDB's ids below 256. ``binary`` is 63. An unknown id decodes as UTF-8.
- **character set -> bytes and text**: a single-byte set with the server's own byte table
  (:data:`.charset_data.SINGLE_BYTE_TABLES`: latin1 is Windows-1252 with the five bytes cp1252
  leaves undefined mapped to the C1 controls of the same number, so 0x80 is "€"); a multi-byte
  set with the Python codec of :data:`MULTI_BYTE_CODECS`.
- **text**: :func:`text_codec` for row values (``str`` when the bytes round-trip through the
  character set, else the bytes), :func:`decode_text` / :func:`encode_text` for ENUM/SET member
  names (``str``, else ``{"hex": ...}``).
- **names**: :func:`collation_id` and :func:`collation_name` per flavor,
  :func:`charset_of_collation`, :func:`maxlen`, :func:`default_collation`, from
  :mod:`.collation_data` (the same server's information_schema), loaded when first asked.

``scripts/make_collation_data.py`` regenerates both data modules from a running MariaDB.
"""

from __future__ import annotations

import codecs

from ...construct_ext.errors import StringError

BINARY_ID = 63
UTF8MB4_BIN_ID = 46   # (MariaDB's JSON is LONGTEXT utf8mb4_bin)

BMP_ONLY = frozenset({"utf8mb3", "ucs2"})   # no character beyond U+FFFF

# Python codecs of the multi-byte character sets. Each was checked against MariaDB 10.11's own
# conversion of every one- and two-byte sequence (and ujis's three-byte ones): both give the
# same character wherever both decode one, except where noted. A sequence Python does not
# decode, or whose text does not encode back to its bytes, is kept as bytes (the server also
# reads big5's F9D6-F9DC, cp932's and ujis's extension rows); the few Python reads and the
# server does not (big5 A15A A1C3 A1C5; cp932's single bytes 80 A0 FD-FF) give Python's text.
MULTI_BYTE_CODECS = {
    "utf8mb3": "utf-8",
    "utf8mb4": "utf-8",
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "utf16le": "utf-16-le",
    "utf32": "utf-32-be",
    "big5": "big5",
    "gbk": "gbk",
    "gb2312": "gb2312",
    "gb18030": "gb18030",     # MySQL only: not checked against a server
    "sjis": "shift_jis",      # 0x815F: the server's U+005C, Python's U+FF3C
    "ujis": "euc_jp",         # 0xA1C0: likewise
    "cp932": "cp932",
    "euckr": "cp949",         # MariaDB's euckr reads the UHC (cp949) extension too
    # eucjpms has none: Python has no eucJP-ms (euc_jp reads seven of its characters as
    # others), so it decodes as UTF-8 when it can, as an unknown set does
}

# MySQL's own collations (information_schema.COLLATIONS of 8.0.40): utf8mb4 of UCA 9.0.0
_MYSQL_0900_LOCALES = [
    # (locale, ai_ci id, as_cs id)
    ("de_pb", 256, 279), ("is", 257, 280), ("lv", 258, 281), ("ro", 259, 282),
    ("sl", 260, 283), ("pl", 261, 284), ("et", 262, 285), ("es", 263, 286), ("sv", 264, 287),
    ("tr", 265, 288), ("cs", 266, 289), ("da", 267, 290), ("lt", 268, 291), ("sk", 269, 292),
    ("es_trad", 270, 293), ("la", 271, 294), ("eo", 273, 296), ("hu", 274, 297),
    ("hr", 275, 298), ("vi", 277, 300), ("ru", 306, 307), ("nb", 310, 311), ("nn", 312, 313),
    ("sr_latn", 314, 315), ("bs", 316, 317), ("bg", 318, 319), ("gl", 320, 321),
    ("mn_cyrl", 322, 323),
]
# name: (id, character set), as :data:`.collation_data.MARIADB_COLLATIONS`
MYSQL_ONLY = {
    "utf8mb4_0900_ai_ci": (255, "utf8mb4"), "utf8mb4_0900_as_cs": (278, "utf8mb4"),
    "utf8mb4_ja_0900_as_cs": (303, "utf8mb4"), "utf8mb4_ja_0900_as_cs_ks": (304, "utf8mb4"),
    "utf8mb4_0900_as_ci": (305, "utf8mb4"), "utf8mb4_zh_0900_as_cs": (308, "utf8mb4"),
    "utf8mb4_0900_bin": (309, "utf8mb4"), "utf8mb3_tolower_ci": (76, "utf8mb3"),
    "gb18030_chinese_ci": (248, "gb18030"), "gb18030_bin": (249, "gb18030"),
    "gb18030_unicode_520_ci": (250, "gb18030"),
    **{f"utf8mb4_{loc}_0900_ai_ci": (ai, "utf8mb4") for loc, ai, _ in _MYSQL_0900_LOCALES},
    **{f"utf8mb4_{loc}_0900_as_cs": (cs, "utf8mb4") for loc, _, cs in _MYSQL_0900_LOCALES},
}
# name: (maximum bytes per character, default collation), as MARIADB_CHARSETS
MYSQL_CHARSETS = {"gb18030": (4, "gb18030_chinese_ci")}
CHARSET_ALIASES = {"utf8": "utf8mb3"}


class CollationError(ValueError):
    pass


# ---------------------------------------------------------------------------- ids


_BY_ID: dict | None = None


def _by_id() -> dict:
    global _BY_ID
    if _BY_ID is None:
        from .charset_data import COLLATION_ID_RUNS
        by_id = {cid: cs for first, last, cs in COLLATION_ID_RUNS
                 for cid in range(first, last + 1)}
        by_id.update((cid, cs) for cid, cs in MYSQL_ONLY.values())
        _BY_ID = by_id
    return _BY_ID


def charset_of_id(cid: int) -> str:
    """The character set of a collation id (``binary`` for 63); an unknown id raises."""
    cs = _by_id().get(cid)
    if cs is None:
        raise CollationError(f"unknown collation id {cid}")
    return cs


# ---------------------------------------------------------------------------- text


class _Charset:
    """How one character set's bytes become text and back (both strict)."""

    __slots__ = ("name", "codec", "to_text", "to_bytes")

    def __init__(self, name, codec, to_text, to_bytes):
        self.name = name      # the server's name (utf8mb4, latin1, ...; "utf-8" when unknown)
        self.codec = codec    # the Python codec, or None for a server table
        self.to_text = to_text
        self.to_bytes = to_bytes


_CHARSETS: dict = {}


def _single_byte(name: str, points) -> _Charset:
    table = "".join(chr(cp) if cp or b == 0 else "\ufffe"   # (U+FFFE: the byte has none)
                    for b, cp in enumerate(points))
    encoding = codecs.charmap_build(table)
    charmap_decode, charmap_encode = codecs.charmap_decode, codecs.charmap_encode

    def to_text(raw):
        return charmap_decode(raw, "strict", table)[0]

    def to_bytes(text):
        return charmap_encode(text, "strict", encoding)[0]
    return _Charset(name, None, to_text, to_bytes)


def _python_codec(name: str, codec: str) -> _Charset:
    def to_text(raw):
        return raw.decode(codec)

    def to_bytes(text):
        return text.encode(codec)
    return _Charset(name, codec, to_text, to_bytes)


def _charset(name: str | None) -> _Charset:
    """The :class:`_Charset` of a character set name (None or unknown: UTF-8)."""
    cs = _CHARSETS.get(name)
    if cs is None:
        codec = MULTI_BYTE_CODECS.get(name)
        if codec is not None:
            cs = _python_codec(name, codec)
        else:
            from .charset_data import SINGLE_BYTE_TABLES
            points = SINGLE_BYTE_TABLES.get(name)
            cs = _single_byte(name, points) if points else _python_codec("utf-8", "utf-8")
        _CHARSETS[name] = cs
    return cs


def _of_collation(collation_id: int | None) -> _Charset:
    if collation_id is None:
        return _charset(None)
    by_id = _by_id()
    name = by_id.get(collation_id)
    if name is None and collation_id >= 1024:  # a NOPAD id not in the table: 1024 + PAD id
        name = by_id.get(collation_id - 1024)
    return _charset(name)


def text_codec(collation_id: int | None):
    """(decode, encode) for text values in a collation: bytes for binary; ``str`` when the
    bytes round-trip through the character set, else the bytes themselves (never lossy).
    ``encode`` takes either and gives the stored bytes (a ``StringError`` for text the
    character set cannot hold)."""
    if collation_id == BINARY_ID:
        return bytes, bytes
    cs = _of_collation(collation_id)
    to_text, to_bytes, label = cs.to_text, cs.to_bytes, cs.codec or cs.name

    if cs.codec == "utf-8":
        # valid UTF-8 decodes to text that encodes back to the same bytes (the strict codec
        # refuses overlong forms and surrogates): no round trip to check
        def dec(raw):
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return bytes(raw)
    else:
        def dec(raw):
            raw = bytes(raw)
            try:
                s = to_text(raw)
                if to_bytes(s) == raw:
                    return s
            except (UnicodeError, LookupError):
                pass
            return raw

    def enc(value):
        if isinstance(value, str):
            try:
                return to_bytes(value)
            except UnicodeError as e:
                raise StringError(f"{value!r:.40} is not {label}: {e}") from None
        return bytes(value)
    return dec, enc


def decode_text(data: bytes, collation_id: int | None):
    """A name (an ENUM/SET member) in its collation's character set: ``str`` when the bytes
    decode and encode back to the same bytes, else ``{"hex": ...}``. Names of a binary
    collation read as UTF-8."""
    data = bytes(data)
    cs = _of_collation(None if collation_id == BINARY_ID else collation_id)
    try:
        text = cs.to_text(data)
        if cs.to_bytes(text) == data:
            return text
    except (UnicodeError, LookupError):
        pass
    return {"hex": data.hex()}


def encode_text(value, collation_id: int | None) -> bytes:
    """The bytes of a name: ``{"hex": ...}`` and bytes as they are, text in the collation's
    character set (UTF-8 for binary); a ``UnicodeError`` for text it cannot hold."""
    if isinstance(value, dict) and "hex" in value:
        return bytes.fromhex(value["hex"])
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return _of_collation(None if collation_id == BINARY_ID else collation_id).to_bytes(value)


# ---------------------------------------------------------------------------- names


def _mariadb():
    from .collation_data import MARIADB_CHARSETS, MARIADB_COLLATIONS
    return MARIADB_COLLATIONS, MARIADB_CHARSETS


def canonical_charset(name: str) -> str:
    name = name.lower()
    return CHARSET_ALIASES.get(name, name)


def canonical_collation(name: str) -> str:
    name = name.lower()
    if name.startswith("utf8_"):
        return "utf8mb3_" + name[5:]
    return name


def collation_id(name: str, flavor: str) -> int:
    """The id of a collation on a server of ``flavor``; an unknown name raises. MySQL has the
    ids below 256 of MariaDB's table (none of its nopad, uca1400 or _mysql561 forms) and its
    own 0900 family."""
    name = canonical_collation(name)
    if name == "binary":
        return BINARY_ID
    mariadb = _mariadb()[0]
    if flavor == "mysql":
        if name in MYSQL_ONLY:
            return MYSQL_ONLY[name][0]
        entry = mariadb.get(name)
        if entry is not None and entry[0] < 256:
            return entry[0]
        raise CollationError(f"unknown collation {name!r} for MySQL")
    entry = mariadb.get(name)
    if entry is None:
        raise CollationError(f"unknown collation {name!r} for MariaDB")
    return entry[0]


def collation_name(cid: int, flavor: str) -> str:
    """The name of a collation id on a server of ``flavor``; an unknown id raises."""
    if cid == BINARY_ID:
        return "binary"
    if flavor == "mysql":
        for name, (mid, _cs) in MYSQL_ONLY.items():
            if mid == cid:
                return name
    for name, (i, _cs) in _mariadb()[0].items():
        if i == cid and (flavor == "mariadb" or i < 256):
            return name
    raise CollationError(f"unknown collation id {cid}")


def charset_of_collation(name: str) -> str:
    name = canonical_collation(name)
    if name == "binary":
        return "binary"
    entry = _mariadb()[0].get(name) or MYSQL_ONLY.get(name)
    if entry is None:
        raise CollationError(f"unknown collation {name!r}")
    return entry[1]


def _charset_entry(charset: str):
    charset = canonical_charset(charset)
    entry = _mariadb()[1].get(charset) or MYSQL_CHARSETS.get(charset)
    if entry is None:
        raise CollationError(f"unknown character set {charset!r}")
    return entry


def maxlen(charset: str) -> int:
    """Bytes per character at most (mbmaxlen)."""
    return _charset_entry(charset)[0]


def default_collation(charset: str, overrides=()) -> str:
    """The default collation of a character set, unless ``overrides`` ((charset, collation)
    pairs: a server's, e.g. MySQL 8.0+ defaults utf8mb4 to utf8mb4_0900_ai_ci, MariaDB 11.6+
    to uca1400_ai_ci) names another."""
    override = dict(overrides).get(canonical_charset(charset))
    if override:
        return override
    return _charset_entry(charset)[1]


def bin_collation(charset: str, flavor: str) -> str:
    """The ``_bin`` collation of a character set (``CHAR(n) BINARY``)."""
    charset = canonical_charset(charset)
    if charset == "binary":
        return "binary"
    name = f"{charset}_bin"
    collation_id(name, flavor)
    return name
