"""MySQL's binary DECIMAL (NEWDECIMAL, type 246) as ``decimal.Decimal``, exactly.

Layout (``decimal2bin``): the integer and fraction digits are cut into groups of 9 digits
stored as 4-byte big-endian integers, a leading (integer) or trailing (fraction) partial group
taking 1-4 bytes by its digit count; the first byte's top bit is flipped (set for a positive
number), and every byte of a negative number is inverted.
"""

from __future__ import annotations

from decimal import Decimal

import construct as c

DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def decimal_size(precision: int, scale: int) -> int:
    intg = precision - scale
    return (intg // 9) * 4 + DIG2BYTES[intg % 9] + (scale // 9) * 4 + DIG2BYTES[scale % 9]


def _groups(precision, scale):
    intg = precision - scale
    out = []
    if intg % 9:
        out.append((DIG2BYTES[intg % 9], intg % 9))
    out += [(4, 9)] * (intg // 9)
    frac = [(4, 9)] * (scale // 9)
    if scale % 9:
        frac.append((DIG2BYTES[scale % 9], scale % 9))
    return out, frac


def decimal_parse(data, pos, precision, scale):
    if not (0 < precision <= 65 and 0 <= scale <= 30 and scale <= precision):
        raise c.ValidationError(f"DECIMAL({precision},{scale}) is not a valid precision/scale")
    size = decimal_size(precision, scale)
    if pos + size > len(data):
        raise c.StreamError(f"DECIMAL needs {size} bytes, {len(data) - pos} left")
    raw = bytearray(data[pos:pos + size])
    negative = not raw[0] & 0x80
    raw[0] ^= 0x80
    if negative:
        raw = bytearray(b ^ 0xFF for b in raw)
    ints, fracs = _groups(precision, scale)
    i = 0
    digits = []
    for nbytes, ndig in ints + fracs:
        v = int.from_bytes(raw[i:i + nbytes], "big")
        if v >= 10 ** ndig:
            raise c.ValidationError(f"DECIMAL group {v} has more than {ndig} digits")
        digits.append(str(v).zfill(ndig))
        i += nbytes
    n_int = len(ints)
    int_text = "".join(digits[:n_int]).lstrip("0") or "0"
    frac_text = "".join(digits[n_int:])
    text = int_text + ("." + frac_text if scale else "")
    return Decimal(("-" if negative else "") + text), pos + size


def decimal_build(value, out: bytearray, precision, scale):
    value = Decimal(value)
    sign, _, _ = value.as_tuple()
    mag = value.copy_abs()  # abs() would round to the context precision
    text = f"{mag:.{scale}f}" if scale else f"{mag:.0f}"
    int_text, _, frac_text = text.partition(".")
    intg = precision - scale
    if len(int_text.lstrip("0")) > intg or not value.is_finite():
        raise c.IntegerError(f"{value} does not fit DECIMAL({precision},{scale})")
    int_text = int_text.zfill(intg)[-intg:] if intg else ""
    ints, fracs = _groups(precision, scale)
    raw = bytearray()
    p = 0
    for nbytes, ndig in ints:
        raw += int(int_text[p:p + ndig] or "0").to_bytes(nbytes, "big")
        p += ndig
    p = 0
    for nbytes, ndig in fracs:
        raw += int(frac_text[p:p + ndig] or "0").to_bytes(nbytes, "big")
        p += ndig
    if sign:
        raw = bytearray(b ^ 0xFF for b in raw)
    raw[0] ^= 0x80
    out += raw
