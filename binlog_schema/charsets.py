"""Collation id -> Python codec, for decoding ENUM/SET member names (and, later, text values).

Only what is needed to decode: the charset of each well-known collation id (MySQL and MariaDB
share ids below 256; MariaDB's NOPAD collations are 1024 + the PAD collation's id). An unknown
id decodes as UTF-8 when it can; callers fall back to hex for bytes that do not decode.
"""

from __future__ import annotations

_RANGES = {
    "latin1": [5, 8, 15, 31, 47, 48, 49, 94],
    "ascii": [11, 65],
    "cp1250": [26, 34, 44, 66, 99],
    "cp1251": [14, 23, 50, 51, 52],
    "cp1256": [57, 67],
    "cp1257": [29, 58, 59],
    "latin2": [2, 9, 21, 27, 77],
    "latin5": [30, 78],
    "latin7": [20, 41, 42, 79],
    "greek": [25, 70],
    "hebrew": [16, 71],
    "koi8_r": [7, 74],
    "koi8_u": [22, 75],
    "cp850": [4, 80],
    "cp852": [40, 81],
    "cp866": [36, 68],
    "big5": [1, 84],
    "gbk": [28, 87],
    "gb2312": [24, 86],
    "sjis": [13, 88],
    "cp932": [95, 96],
    "euc_jp": [12, 91],
    "euc_kr": [19, 85],
    "utf-16-be": [54, 55] + list(range(101, 125)),
    "utf-16-le": [56, 62],
    "utf-32-be": [60, 61] + list(range(160, 184)),
    "utf-8": [33, 76, 83, 45, 46, 255] + list(range(192, 216)) + list(range(223, 255))
             + list(range(256, 324)),
}
CODEC_OF = {cid: codec for codec, ids in _RANGES.items() for cid in ids}
BINARY = 63


def codec_for(collation_id: int | None) -> str | None:
    """The Python codec of a collation (None for binary)."""
    if collation_id is None:
        return "utf-8"
    if collation_id == BINARY:
        return None
    if collation_id >= 1024 and collation_id - 1024 in CODEC_OF:  # MariaDB NOPAD variants
        return CODEC_OF[collation_id - 1024]
    return CODEC_OF.get(collation_id, "utf-8")


def decode_text(data: bytes, collation_id: int | None):
    """``str`` when the bytes decode (and re-encode to the same bytes) in the collation's
    charset, else ``{"hex": ...}``."""
    codec = codec_for(collation_id) or "utf-8"
    try:
        text = data.decode(codec)
        if text.encode(codec) == data:
            return text
    except (UnicodeDecodeError, LookupError):
        pass
    return {"hex": data.hex()}


def encode_text(value, collation_id: int | None) -> bytes:
    if isinstance(value, dict) and "hex" in value:
        return bytes.fromhex(value["hex"])
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return value.encode(codec_for(collation_id) or "utf-8")
