"""Row images as Arrow ``map<column name, Value>`` columns (``before`` and ``after`` of
``row_changes``), built column by column for the ``arrow`` engine.

The images of a batch that name the same columns in the same order (every full image of one
table shape) form a group; a group's values are taken column by column (one ``zip`` over its
dicts, in C), and each column, whose values are of one Python type (and NULLs), becomes the
arrays of the ``Value`` fields it fills in one call (:mod:`.value_structs`). Each field is
then laid out column after column and taken into the maps' row order by one index for all
fields, made by vector operations (which image, which of its columns, its place in its
group). The images of a batch whose columns vary (minimal row images) are converted as one
flat list grouped by Python type.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import accumulate, chain, repeat
from operator import itemgetter

import pyarrow as pa
import pyarrow.compute as pc

from . import spark_values
from .value_structs import column_fields, field_arrays, struct_array

_INT64 = pa.int64()


# ---------------------------------------------------------------------------------------
# row images as map<column name, Value>


class ImageColumn:
    """The images of one side (``before`` or ``after``) of a batch of rows.

    Images with the same column names in the same order (every full image of one table
    shape) form a group: a group's values are taken column by column (one ``zip`` over the
    dicts), so that each column's values, of one type, convert at once; the map entries are
    then put back in row order by one ``take``. Images whose names vary (minimal images)
    are converted as one flat list."""

    def __init__(self):
        self.nulls: list = []     # per row: no image
        self.lengths: list = []   # per image present: how many columns
        self.groups: dict = {}    # column names -> [group number, images]
        self.group_of: list = []  # per image present: its group
        self.index: list = []     # ... and its position in the group
        self.entries = 0          # column values in all

    def __len__(self):
        return len(self.group_of)

    def add(self, images: list, json_cols=None):
        present = [i for i in images if i is not None]
        if len(present) == len(images):
            self.nulls.extend(repeat(False, len(images)))
        elif not present:
            self.nulls.extend(repeat(True, len(images)))
            return
        else:
            self.nulls.extend(i is None for i in images)
        if json_cols:
            present = [spark_values.json_marked(i, json_cols) for i in present]
        lengths = list(map(len, present))
        self.lengths += lengths
        self.entries += sum(lengths)
        names = tuple(present[0])
        if len(present) == 1 or all(map(names.__eq__, map(tuple, present))):
            self._add(names, present)
        else:                    # (an event whose images name different columns)
            for i in present:
                self._add(tuple(i), [i])

    def _add(self, names, images):
        group = self.groups.get(names)
        if group is None:
            group = self.groups[names] = [len(self.groups), []]
        n, members = group
        self.group_of.extend(repeat(n, len(images)))
        self.index.extend(range(len(members), len(members) + len(images)))
        members.extend(images)

    def array(self, mtype: pa.MapType) -> pa.MapArray:
        vtype = mtype.item_type
        if not self.group_of:
            keys, items = pa.array([], pa.string()), struct_array({}, 0, vtype)
        elif len(self.groups) * 8 > len(self.group_of) + 64:   # few images share names
            keys, items = self._flat(vtype)
        else:
            keys, items = self._by_column(vtype)
        lengths = iter(self.lengths)
        offsets = list(accumulate((0 if null else next(lengths) for null in self.nulls),
                                  initial=0))
        mask = pa.array(self.nulls, pa.bool_()) if any(self.nulls) else None
        return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), keys, items,
                                       type=mtype, mask=mask)

    def _images(self) -> list:
        """The images present, in row order."""
        members = [m for _, m in sorted(self.groups.values(), key=itemgetter(0))]
        return [members[g][i] for g, i in zip(self.group_of, self.index)]

    def _flat(self, vtype):
        images = self._images()
        keys = pa.array(list(chain.from_iterable(images)), pa.string())
        values = list(chain.from_iterable(map(dict.values, images)))
        return keys, struct_array(field_arrays(values, vtype), len(values), vtype)

    def _by_column(self, vtype):
        # the groups' columns ("slots") one after the other, each converted alone: each
        # Value field laid out column by column (nulls for the slots that do not fill it);
        # each map entry (image i, its k-th column) then takes its value at the place of
        # that column (slot ``first[group of i] + k``) and of the image in its group: one
        # index per entry made by vector operations, one ``take`` per field
        names, sizes, parts, first = [], [], defaultdict(dict), []
        for cols, (_n, members) in sorted(self.groups.items(), key=lambda kv: kv[1][0]):
            first.append(len(names))
            for k, column in enumerate(zip(*map(dict.values, members))):
                for f, arr in column_fields(column, vtype).items():
                    parts[f][len(names)] = arr
                names.append(cols[k])
                sizes.append(len(members))
        image, k = _entries(self.lengths)
        slot = pc.add(pc.take(pc.take(pa.array(first, _INT64),
                                      pa.array(self.group_of, pa.int32())), image), k)
        starts = pa.array(list(accumulate(sizes[:-1], initial=0)), _INT64)
        where = pc.add(pc.take(starts, slot), pc.take(pa.array(self.index, _INT64), image))
        keys = pa.array(names, pa.string()).take(slot)
        fields = {}
        for f, have in parts.items():
            ftype = vtype[f].type
            laid = pa.concat_arrays([have[s] if s in have else pa.nulls(sizes[s], ftype)
                                     for s in range(len(names))])
            fields[f] = laid.take(where)
        return keys, struct_array(fields, len(image), vtype)


def _entries(lengths: list):
    """For the entries of maps of these lengths: which map each is in, and its place there
    (vector operations, not a Python object per entry)."""
    starts = list(accumulate(lengths, initial=0))
    if 0 in lengths:   # (runs must not be empty)
        image = pa.array(list(chain.from_iterable(map(repeat, range(len(lengths)),
                                                      lengths))), pa.int32())
    else:
        image = pc.run_end_decode(pa.RunEndEncodedArray.from_arrays(
            pa.array(starts[1:], _INT64), pa.array(range(len(lengths)), pa.int32())))
    count = pc.cumulative_sum(pa.repeat(pa.scalar(1, _INT64), starts[-1]))
    k = pc.subtract(count, pc.add(pc.take(pa.array(starts[:-1], _INT64), image), 1))
    return image, k

