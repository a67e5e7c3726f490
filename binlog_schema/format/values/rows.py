"""Row images of rows events, decoded through the table map in force, and built back.

A rows event's ``rows`` bytes hold, per row, one image (write: after; delete: before) or two
(update: before then after). The layout of an image (null bitmap over the *present* columns,
then the non-NULL values by their codecs; PARTIAL_UPDATE_ROWS after images' value_options and
partial-JSON bitmap) is declared once, in :mod:`.image`: one :class:`~.image.ImagePlan` per
set of present columns, from which come the codecs' reading and building and the code
generated per table shape (here the typed rows, in ``output.row_images`` their JSON text).

A row is a dict ``{column key: value}`` over the present columns (None = NULL), keyed by the
column index (or the keys the codec was made with, e.g. column names). Servers
write the null bitmap's spare bits as ones; an image whose spare bits differ keeps them under
``"_null_bits"`` so it rebuilds exactly. Pre-GA 5.1 images have one extra leading bit.
"""

from __future__ import annotations

from ...construct_ext.errors import ValidationError
from ..facts.codes import (DELETE_KINDS, PARTIAL_UPDATE_ROWS_EVENT, PRE_GA_ROWS_KINDS,
                           UPDATE_KINDS, WRITE_KINDS)
from ..facts.flavor import json_is_binary
from .codecs import codec_for
from .image import (PARTIAL_JSON, ImagePlan, JsonDiff, PartialJson, compile_image,  # noqa: F401
                    read_rows)


class RowsCodec:
    """Row images of one table: built once per table map, used for every rows event. The
    images of each set of present columns have their :class:`~.image.ImagePlan`, made once
    from the columns' codecs."""

    def __init__(self, table_map, keys=None):
        """``keys``: what a row dict is keyed by, per column (default: the column index;
        the row-change model passes column names)."""
        self.table_map = table_map
        self.keys = list(keys) if keys is not None else list(range(len(table_map.columns)))
        flavor = table_map.flavor or "mysql"
        self.codecs = [codec_for(col, flavor) for col in table_map.columns]
        json_cols = [i for i, col in enumerate(table_map.columns)
                     if col.type == "JSON" and json_is_binary(flavor)]
        self._partial = PartialJson([self.keys[i] for i in json_cols],
                                    {self.keys[i]: table_map.columns[i].pack_length or 4
                                     for i in json_cols})
        self._plans: dict = {}  # (present, shift, partial) -> ImagePlan
        self._by_bitmaps: dict = {}  # plans()' (type, count, bitmaps) -> its two plans

    # ------------------------------------------------------------------ image plans

    @staticmethod
    def present(bits) -> tuple:
        """The indexes of the columns a ``columns_present``/``columns_after`` bitmap sets."""
        return tuple(i for i, b in enumerate(bits) if b)

    def plan(self, present: tuple, shift: int = 0, partial: bool = False) -> ImagePlan:
        """The :class:`ImagePlan` of images of the ``present`` columns (made once)."""
        key = (present, shift, partial)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = ImagePlan(
                [self.codecs[i] for i in present], [self.keys[i] for i in present], shift,
                self._partial if partial else None)
        return plan

    def plans(self, body, kind: int) -> tuple:
        """(the plan of a rows event's first image per row, of its second or None): an
        update has a before and an after image per row, write and delete one. Found once
        per distinct (type, column count, bitmaps): a table's events repeat a few."""
        after = body.get("columns_after")
        key = (kind, body["column_count"], tuple(body["columns_present"]),
               None if after is None else tuple(after))
        found = self._by_bitmaps.get(key)
        if found is None:
            found = self._plans_of(body, kind)
            if len(self._by_bitmaps) >= 256:
                self._by_bitmaps.clear()
            self._by_bitmaps[key] = found
        return found

    def _plans_of(self, body, kind: int) -> tuple:
        count = body["column_count"]
        before = self.present(body["columns_present"][:count])
        after = self.present(body["columns_after"][:count]) \
            if body.get("columns_after") is not None else before
        if max(before + after, default=-1) >= len(self.codecs):
            raise ValidationError(f"rows event has {count} columns, the table map "
                                  f"{len(self.codecs)}")
        shift = 1 if kind in PRE_GA_ROWS_KINDS else 0
        first = self.plan(before, shift)
        if kind not in UPDATE_KINDS:
            return first, None
        return first, self.plan(after, shift, kind == PARTIAL_UPDATE_ROWS_EVENT)

    # ------------------------------------------------------------------ events

    def decode(self, body, kind: int, compiled: bool | None = None, spans=None) -> list:
        """The rows of a rows event body: dicts (write/delete) or (before, after) pairs.
        Images are read by code generated once per plan (:func:`~.image.compile_image`);
        when that fails, the codecs read the event again, for the precise error.
        ``compiled``: True reads by the generated code only, False by the codecs only.
        ``spans``: a list that gets each row's byte offsets (:func:`~.image.read_rows`)."""
        rows_field = body["rows"]
        data = rows_field["data"] if isinstance(rows_field, dict) else rows_field
        first, second = self.plans(body, kind)
        if compiled is not False and kind != PARTIAL_UPDATE_ROWS_EVENT:
            try:
                return read_rows(data, first.compiled_as("row", compile_image),
                                 None if second is None else
                                 second.compiled_as("row", compile_image), spans)
            except Exception:  # re-read through the codecs, for the error
                if compiled:
                    raise
                FALLBACKS["rows"] += 1
                if spans is not None:
                    spans.clear()
        return read_rows(data, first.parse, None if second is None else second.parse, spans)

    def encode(self, rows, body, kind: int) -> bytes:
        """The ``rows`` bytes of ``rows`` (as :meth:`decode` gives them) for a rows event
        with ``body``'s present columns."""
        first, second = self.plans(body, kind)
        out = bytearray()
        if second is None:
            build = first.build
            for row in rows:
                build(row, out)
        else:
            for before, after in rows:
                first.build(before, out)
                second.build(after, out)
        return bytes(out)


def operation_of(kind: int) -> str:
    if kind in WRITE_KINDS:
        return "insert"
    if kind in UPDATE_KINDS:
        return "update"
    if kind in DELETE_KINDS:
        return "delete"
    raise ValueError(f"type {kind} is not a rows event")


# How often a compiled image parser failed and the codecs read the event again: on valid rows
# this stays 0 (a test checks it over the corpus).
FALLBACKS = {"rows": 0}
