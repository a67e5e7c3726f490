"""Row images as JSON text, compiled per table shape: for the columns an image holds, one
converter per column chosen from its codec once, by its column-type family
(:mod:`binlog_schema.format.forms`: an int column's value is written with ``int.__repr__``, a
text column's quoted, a temporal column's ISO text quoted, ...; any other value through
:func:`..format.forms.json_safe.jsonable` and the encoder), and a function per set of columns
that writes an image's object in one expression. The text is what encoding the ``jsonable``
forms gives (the tests compare them over the corpus)."""

from __future__ import annotations

from ..format.facts.codes import PARTIAL_UPDATE_ROWS_EVENT
from ..format.forms import family, integers, reals, strings
from ..format.forms.json_safe import jsonable
from ..format.values.image import IMAGE_KEYS, ValueEmitter, compile_image, read_rows
from ..construct_ext.jsontext import quote
from ..construct_ext.run import execute

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
    """value (not None) -> its JSON text, for a column of this codec: its column-type
    family's (:mod:`binlog_schema.format.forms`; a length-prefixed value's is the strings
    family's), any other value through :func:`jsonable` and the encoder."""
    def generic(v):
        return dumps(jsonable(v, binary))

    fam = strings if codec.prefixed is not None and codec.fixed is None else family(
        codec.type_name)
    return generic if fam is None else fam.json_converter(codec, generic)


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
            if k in IMAGE_KEYS:
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
        return execute("\n".join(lines), "<row image json>", ns)["image"]


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


# ---------------------------------------------------------------------------------------
# straight from the row bytes: JSON Lines' images without the typed values in between


def _fields_json(codec, dumps):
    """fields (as the codec's ``fields`` reads them) -> JSON text, for its type (its
    column-type family's ``fields_json``); None when the type has no such form here."""
    fam = family(codec.type_name)
    fields_json = getattr(fam, "fields_json", None)
    return None if fields_json is None else fields_json(codec, dumps)


class JsonEmitter(ValueEmitter):
    """An image's JSON text (compact, binary values as hex): what encoding the
    :func:`..format.forms.json_safe.jsonable` forms of the typed image gives, without making
    the typed values where a type's fields have a text of their own (its family's
    ``fields_json``: integers, text, temporal values, decimals, ENUM, SET)."""

    null = "'null'"

    def __init__(self, ns):
        super().__init__(ns)
        self.dumps = _encoder(",", ":")
        ns.update(dumps=self.dumps, jsonable=jsonable, **integers.CODE_NAMES,
                  **reals.CODE_NAMES, **strings.CODE_NAMES)

    def fixed(self, j, codec, v, raw):  # (the families' code: fixed width, a number)
        return (reals if codec.fixed[1] == "float" else integers).fixed_json_code(codec, v)

    def value(self, j, codec, key):
        ns = self.ns
        if codec.prefixed is not None:
            width, dec = codec.prefixed
            ns[f"D{j}"] = dec
            return self.length_lines(width) + [
                f"s = D{j}(data[pos:pos + n])", "pos += n",
                f"a{j} = " + strings.prefixed_json_code("s")]
        to_json = _fields_json(codec, self.dumps) if codec.fields is not None else None
        if to_json is not None:
            ns[f"F{j}"], ns[f"C{j}"] = codec.fields, to_json
            return [f"f, pos = F{j}(data, pos)", f"a{j} = C{j}(f)"]
        ns[f"P{j}"] = codec.parse
        return [f"v, pos = P{j}(data, pos)",
                f"a{j} = 'null' if v is None else dumps(jsonable(v, 'hex'))"]

    def result(self, plan, kept):  # (the kept bits are not the JSON's)
        shown = [(j, k) for j, k in enumerate(plan.keys) if k not in IMAGE_KEYS]
        if not shown:
            return "'{}'"
        parts = []
        for m, (j, k) in enumerate(shown):
            parts.append(repr(("{" if m == 0 else ",") + quote(str(k)) + ":"))
            parts.append(f"a{j}")
        return " + ".join(parts) + " + '}'"


def compile_image_json(plan):
    """``image(data, pos) -> (JSON text, pos)`` for the images of ``plan`` (an
    :class:`~binlog_schema.format.values.image.ImagePlan`), straight from the bytes: the plan's
    generated reader (:func:`~binlog_schema.format.values.image.compile_image`) with the
    :class:`JsonEmitter`. It raises on anything short or odd; the caller then decodes through
    the codecs, for the precise error."""
    return compile_image(plan, JsonEmitter, "row image json")


def _pair_json(rows) -> list:
    return ['{"before":' + a + ',"after":' + b + "}" for a, b in rows]


def rows_json_direct(codec, body, kind) -> str:
    """A rows event's rows as a JSON array, straight from the bytes (see
    :func:`compile_image_json`), through ``codec`` (the table's RowsCodec): its image plans,
    read by :func:`~binlog_schema.format.values.image.read_rows`."""
    if kind == PARTIAL_UPDATE_ROWS_EVENT:
        raise ValueError("partial updates: decoded through the codecs")
    rows_field = body["rows"]
    data = rows_field["data"] if isinstance(rows_field, dict) else rows_field
    first, second = codec.plans(body, kind)
    first = first.compiled_as("json", compile_image_json)
    if second is None:
        return "[" + ",".join(read_rows(data, first)) + "]"
    rows = read_rows(data, first, second.compiled_as("json", compile_image_json))
    return "[" + ",".join(_pair_json(rows)) + "]"
