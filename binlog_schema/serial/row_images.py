"""Row images as JSON text, compiled per table shape: for the columns an image holds, one
converter per column chosen from its codec once (an int column's value is written with
``int.__repr__``, a text column's quoted, a temporal column's ISO text quoted, ...; any other
value through :func:`.value_forms.jsonable` and the encoder), and a function per set of
columns that writes an image's object in one expression. The text is what encoding the
:func:`~.value_forms.jsonable` forms gives (the tests compare them over the corpus)."""

from __future__ import annotations

from ..mysql.coltypes import TEMPORAL_TYPES
from .jsonl import quote
from .value_forms import jsonable

try:
    from _json import make_encoder as _make_encoder
except ImportError:  # pragma: no cover
    _make_encoder = None


def _encoder(item: str, key: str):
    if _make_encoder is not None:
        enc = _make_encoder(None, None, quote, None, key, item, False, False, True)
        return lambda obj: "".join(enc(obj, 0))
    import json  # pragma: no cover
    return json.JSONEncoder(ensure_ascii=False, separators=(item, key)).encode


def _converter(codec, binary: str, dumps):
    """value (not None) -> its JSON text, for a column of this codec."""
    def generic(v):
        return dumps(jsonable(v, binary))

    fixed, prefixed, ty = codec.fixed, codec.prefixed, codec.type_name
    if fixed is not None:
        if fixed[1] == "float":
            finite = float.__repr__

            def float_json(v):
                if v - v == 0.0:  # finite (a NaN or an infinity gives NaN)
                    return finite(v)
                return generic(v)
            return float_json
        return int.__repr__
    if ty in ("INT24", "BIT"):
        return int.__repr__
    if prefixed is not None:
        def text_json(v):
            if type(v) is str:
                return quote(v)
            return generic(v)
        return text_json
    if ty in TEMPORAL_TYPES:
        return lambda v: '"' + v.isoformat() + '"'
    if ty == "NEWDECIMAL":
        return lambda v: '"' + format(v, "f") + '"'
    if ty == "ENUM":
        def enum_json(v):  # (as jsonable: the name, or the index for the error value or when
            name = v.name  # no names were logged)
            if name is not None and v.index:
                return quote(name) if type(name) is str else generic(v)
            return int.__repr__(v.index)
        return enum_json
    return generic


class ImagesJson:
    """The JSON of the images of one table (``codec``: its :class:`RowsCodec`), for one way
    of writing binary values and one pair of separators."""

    def __init__(self, codec, binary: str = "hex", item: str = ",", key: str = ":"):
        self.dumps = _encoder(item, key)
        self.item, self.key = item, key
        self.converters = {k: _converter(c, binary, self.dumps)
                           for k, c in zip(codec.keys, codec.codecs)}
        self.images: dict = {}

    def __call__(self, row) -> str:
        keys = tuple(row)
        image = self.images.get(keys)
        if image is None:
            image = self.images[keys] = self._compile(keys)
        return image(row)

    def _compile(self, keys):
        ns, lines, parts = {}, ["def image(row):"], []
        for j, k in enumerate(keys):
            if isinstance(k, str) and k.startswith("_"):
                continue
            ns[f"C{j}"] = self.converters[k]
            lines.append(f"    v = row[{k!r}]")
            lines.append(f"    a{j} = 'null' if v is None else C{j}(v)")
            parts.append((quote(str(k)) + self.key, f"a{j}"))
        if not parts:
            lines.append("    return '{}'")
        else:
            pieces = []
            for n, (name, var) in enumerate(parts):
                pieces.append(repr(("{" if n == 0 else self.item) + name))
                pieces.append(var)
            lines.append("    return " + " + ".join(pieces) + " + '}'")
        exec(compile("\n".join(lines), "<row image json>", "exec"), ns)
        return ns["image"]


def images_json(codec, binary: str = "hex", item: str = ",", key: str = ":") -> ImagesJson:
    """The :class:`ImagesJson` of a table's codec (made once per codec and settings)."""
    cache = codec.__dict__.setdefault("_json_images", {})
    images = cache.get((binary, item, key))
    if images is None:
        images = cache[(binary, item, key)] = ImagesJson(codec, binary, item, key)
    return images


def rows_text(decoded, images: ImagesJson) -> str:
    """A rows event's decoded rows as a JSON array (``{"before", "after"}`` for updates)."""
    parts = []
    k = images.key
    before, after = '{"before"' + k, images.item + '"after"' + k
    for x in decoded:
        if type(x) is tuple:
            parts.append(before + images(x[0]) + after + images(x[1]) + "}")
        else:
            parts.append(images(x))
    return "[" + images.item.join(parts) + "]"
