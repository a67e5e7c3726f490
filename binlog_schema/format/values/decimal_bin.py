"""MySQL's binary DECIMAL (NEWDECIMAL, type 246) as ``decimal.Decimal``, exactly.

Layout (``decimal2bin``): the integer and fraction digits are cut into groups of 9 digits
stored as 4-byte big-endian integers, a leading (integer) or trailing (fraction) partial group
taking 1-4 bytes by its digit count; the first byte's top bit is flipped (set for a positive
number), and every byte of a negative number is inverted.

A hand-written primitive, for speed (:mod:`.codecs` uses it per value): both directions here,
:func:`decimal_parse` (and :func:`decimal_text`, its text without the ``Decimal``) and
:func:`decimal_build`, from the one group plan of a precision and scale.
"""

from __future__ import annotations

from decimal import Decimal

from ...construct_ext.errors import IntegerError, StreamError, ValidationError

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


_PLANS: dict = {}


def _plan(precision, scale):
    """(size, [(shift, ndig)] for integer groups, same for fraction groups), shifts counted
    from the right end of the big-endian number."""
    key = (precision, scale)
    plan = _PLANS.get(key)
    if plan is None:
        if not (0 < precision <= 65 and 0 <= scale <= 30 and scale <= precision):
            raise ValidationError(f"DECIMAL({precision},{scale}) is not a valid "
                                    "precision/scale")
        ints, fracs = _groups(precision, scale)
        size = decimal_size(precision, scale)
        shift = 8 * size
        out_i, out_f = [], []
        for nbytes, ndig in ints:
            shift -= 8 * nbytes
            out_i.append((shift, (1 << (8 * nbytes)) - 1, ndig))
        for nbytes, ndig in fracs:
            shift -= 8 * nbytes
            out_f.append((shift, (1 << (8 * nbytes)) - 1, ndig))
        plan = _PLANS[key] = (size, out_i, out_f, 1 << (8 * size - 1), (1 << (8 * size)) - 1)
    return plan


def decimal_parse(data, pos, precision, scale):
    text, pos = decimal_text(data, pos, precision, scale)
    return Decimal(text), pos


def decimal_text(data, pos, precision, scale):
    """The value as text (what ``format(value, "f")`` gives), and where it ends: the layout
    read once, for the typed value and for the JSON writer."""
    size, ints, fracs, top, allbits = _plan(precision, scale)
    if pos + size > len(data):
        raise StreamError(f"DECIMAL needs {size} bytes, {len(data) - pos} left")
    v = int.from_bytes(data[pos:pos + size], "big")
    negative = not v & top
    v ^= top
    if negative:
        v ^= allbits
    ipart = 0
    for shift, mask, ndig in ints:
        g = (v >> shift) & mask
        if g >= _POW10[ndig]:
            raise ValidationError(f"DECIMAL group {g} has more than {ndig} digits")
        ipart = ipart * _POW10[ndig] + g
    fpart = 0
    for shift, mask, ndig in fracs:
        g = (v >> shift) & mask
        if g >= _POW10[ndig]:
            raise ValidationError(f"DECIMAL group {g} has more than {ndig} digits")
        fpart = fpart * _POW10[ndig] + g
    sign = "-" if negative else ""
    text = f"{sign}{ipart}.{fpart:0{scale}d}" if scale else f"{sign}{ipart}"
    return text, pos + size


_POW10 = [10 ** i for i in range(10)]


def decimal_build(value, out: bytearray, precision, scale):
    _plan(precision, scale)  # the same precision/scale check as parsing
    try:
        value = Decimal(value)
    except (ArithmeticError, TypeError, ValueError):
        raise IntegerError(f"{value!r:.40} is not a decimal number") from None
    if not value.is_finite():
        raise IntegerError(f"{value} does not fit DECIMAL({precision},{scale})")
    sign, _, _ = value.as_tuple()
    mag = value.copy_abs()  # abs() would round to the context precision
    text = f"{mag:.{scale}f}" if scale else f"{mag:.0f}"
    int_text, _, frac_text = text.partition(".")
    intg = precision - scale
    if len(int_text.lstrip("0")) > intg or Decimal(text) != mag:
        # too many integer digits, or fraction digits the scale would round away
        raise IntegerError(f"{value} does not fit DECIMAL({precision},{scale})")
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
