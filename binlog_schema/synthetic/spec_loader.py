"""A spec (a dict) checked and normalized into the :class:`~.fixture.Fixture` the
generator writes (:class:`SpecLoader`): its settings (:data:`DEFAULT_SETTINGS`, checked
against the server), its tables, their initial rows, and its transactions: row changes
converted to typed images, updates and deletes matched against the rows the spec built, the
images' columns as ``binlog_row_image`` makes them, and DDL that redefines the tables.
"""

from __future__ import annotations

import copy
import re

from ..changes.schema.model import BLOB_TYPES, TEXT_TYPES
from .column_values import ValueProblem
from ..changes.schema.ddl.tables import parse_ddl, tables_from_ddl
from ..changes.schema.ddl.tokens import DDLError
from .fixture import Change, Fixture, SpecError, Table, Transaction, build_table, where_of
from .servers import ServerError, server_for
from .table_state import TableState, same_value, show_value


DEFAULT_SETTINGS = {
    "checksum": "CRC32",
    "binlog_row_metadata": None,     # the server's default: MINIMAL (MySQL 8+), NO_LOG else
    "binlog_row_image": "FULL",
    "gtid_mode": "OFF",              # MySQL; MariaDB always writes its GTID events
    "compression": False,
    "compression_min_length": 256,   # MariaDB log_bin_compress_min_len
    "annotate_rows": None,           # MariaDB binlog_annotate_row_events (default ON)
    "server_id": 1,
    "server_uuid": "3e11fa47-71ca-11e1-9e33-c80aa9429562",
    "gtid_tag": None,                # MySQL 8.4+: GTID_TAGGED_LOG_EVENT with this tag
    "gtid_domain_id": 0,
    "gtid_start": None,              # first gno / seq_no (default: after the previous set)
    "previous_gtids": [],            # MySQL: ["uuid:1-5", "uuid:tag:1-3"]; MariaDB: ["0-1-5"]
    "timestamp": 1700000000,         # the first event's; transactions follow a second apart
    "fde_create_timestamp": None,    # default: the timestamp (first file after a start)
    "thread_id": 10,
    "xid_start": 100,
    "table_id_start": 100,
    "table_ids": {},                 # table ids by name ("db.table" or "table")
    "file_name": None,               # binlog.000001 / mariadb-bin.000001
    "end": "rotate",                 # rotate | stop | none (an open file)
    "next_file": None,
    "rows_event_max_size": 8192,     # binlog_row_event_max_size: rows events split there
    "table_maps": "per_transaction",  # per_transaction (as servers) | once (see TABLE_MAPS)
    "time_zone": None,               # QUERY status TIME_ZONE (a session that used it)
    "character_set_client": None,    # QUERY status: collation ids of the session
    "collation_server": None,
}
ROW_IMAGES = ("FULL", "MINIMAL", "NOBLOB")
# settings.table_maps: per_transaction, as every server writes them (a TABLE_MAP before the
# rows events of its table in each transaction); once, each table map only before the first
# rows event of its table (its definition: a DDL that redefines the table maps it again) in
# the file -- no server does this, but a file cut between transactions then has parts whose
# rows events need a TABLE_MAP from an earlier part (what the Spark pipeline must detect)
TABLE_MAPS = ("per_transaction", "once")
ROW_METADATA = ("NO_LOG", "MINIMAL", "FULL")


def _convert_row(table: Table, row, ctx, partial=False) -> dict:
    """A spec row (dict by name, or list of every column) -> {index: typed value}."""
    where = where_of(ctx)
    if isinstance(row, (list, tuple)):
        if len(row) != len(table.columns):
            raise SpecError(f"{where}: {len(row)} values for the {len(table.columns)} "
                            f"columns of {table.name} ({', '.join(table.names)})")
        items = list(zip(table.names, row))
    elif isinstance(row, dict):
        items = list(row.items())
    else:
        raise SpecError(f"{where}: a row is a mapping (column: value) or a list of values")
    out = {}
    for name, value in items:
        try:
            col = table.column(name)
        except KeyError:
            raise SpecError(f"{where}: table {table.name} has no column {name!r}") from None
        if col.index in out:
            raise SpecError(f"{where}, column {col.name}: given twice")
        try:
            out[col.index] = col.convert(value)
        except ValueProblem as e:
            raise SpecError(f"{where}, column {col.name}: {e}") from None
    return out



class SpecLoader:
    """A spec (a dict) checked and normalized into a :class:`~.fixture.Fixture`
    (:meth:`load`)."""


    def __init__(self, spec: dict):
        if not isinstance(spec, dict):
            raise SpecError("a spec is a mapping (server, settings, tables, transactions)")
        unknown = set(spec) - {"server", "settings", "database", "tables", "transactions",
                               "name", "description"}
        if unknown:
            raise SpecError(f"unknown top-level key(s): {', '.join(sorted(unknown))}")
        try:
            self.server = server_for(spec.get("server") or "mysql-8.0")
        except ServerError as e:
            raise SpecError(str(e)) from None
        self.spec = spec
        self.settings = self._settings(spec.get("settings") or {})
        self.database = spec.get("database")
        self.tables: dict = {}
        self.order: list = []
        self.state: dict = {}
        self.auto: dict = {}
        self.next_table_id = self.settings["table_id_start"]

    # ------------------------------------------------------------------ settings
    def _settings(self, given: dict) -> dict:
        if not isinstance(given, dict):
            raise SpecError("settings is a mapping")
        unknown = set(given) - set(DEFAULT_SETTINGS)
        if unknown:
            raise SpecError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        s = {**DEFAULT_SETTINGS, **given}
        srv = self.server
        s["checksum"] = str(s["checksum"]).upper()
        if s["checksum"] not in ("CRC32", "NONE"):
            raise SpecError(f"settings.checksum: CRC32 or NONE, not {s['checksum']!r}")
        meta = s["binlog_row_metadata"]
        if meta is None:
            meta = "MINIMAL" if srv.flavor == "mysql" and srv.row_metadata else "NO_LOG"
        meta = str(meta).upper().replace("NONE", "NO_LOG")
        if meta not in ROW_METADATA:
            raise SpecError(f"settings.binlog_row_metadata: one of {ROW_METADATA}")
        if meta != "NO_LOG" and not srv.row_metadata:
            raise SpecError(f"settings.binlog_row_metadata: {srv.key} has no "
                            "binlog_row_metadata (MySQL 8.0.1+, MariaDB 10.5+)")
        s["binlog_row_metadata"] = meta
        s["binlog_row_image"] = str(s["binlog_row_image"]).upper()
        if s["binlog_row_image"] not in ROW_IMAGES:
            raise SpecError(f"settings.binlog_row_image: one of {ROW_IMAGES}")
        gm = s["gtid_mode"]
        s["gtid_mode"] = "ON" if gm is True or str(gm).upper() == "ON" else "OFF"
        comp = s["compression"]
        s["compression"] = bool(comp) and str(comp).lower() not in ("off", "none", "false")
        if s["compression"] and srv.flavor == "mysql" and not srv.transaction_compression:
            raise SpecError(f"settings.compression: {srv.key} has no transaction "
                            "compression (MySQL 8.0.20+)")
        if s["gtid_tag"] and not srv.gtid_tags:
            raise SpecError(f"settings.gtid_tag: {srv.key} has no GTID tags (MySQL 8.3+)")
        if s["gtid_tag"] and s["gtid_mode"] != "ON":
            raise SpecError("settings.gtid_tag needs gtid_mode: ON")
        if s["annotate_rows"] is None:
            s["annotate_rows"] = srv.mariadb
        s["table_maps"] = str(s["table_maps"]).lower()
        if s["table_maps"] not in TABLE_MAPS:
            raise SpecError(f"settings.table_maps: {' or '.join(TABLE_MAPS)}")
        s["end"] = str(s["end"]).lower()
        if s["end"] not in ("rotate", "stop", "none"):
            raise SpecError("settings.end: rotate, stop or none")
        if not s["file_name"]:
            s["file_name"] = "mariadb-bin.000001" if srv.mariadb else "binlog.000001"
        if not s["next_file"]:
            m = re.fullmatch(r"(.*?)(\d+)", s["file_name"])
            s["next_file"] = (f"{m.group(1)}{int(m.group(2)) + 1:0{len(m.group(2))}d}" if m
                              else s["file_name"] + ".next")
        for key in ("server_id", "timestamp", "thread_id", "xid_start", "table_id_start",
                    "rows_event_max_size", "gtid_domain_id", "compression_min_length"):
            if not isinstance(s[key], int) or isinstance(s[key], bool) or s[key] < 0:
                raise SpecError(f"settings.{key}: a whole number >= 0")
        if s["fde_create_timestamp"] is None:
            s["fde_create_timestamp"] = s["timestamp"]
        if s["character_set_client"] is None:
            s["character_set_client"] = srv.client_collation
        if s["collation_server"] is None:
            s["collation_server"] = srv.server_collation
        if not isinstance(s["table_ids"], dict):
            raise SpecError("settings.table_ids is a mapping (table name: id)")
        if not isinstance(s["previous_gtids"], list):
            raise SpecError("settings.previous_gtids is a list")
        return s

    # ------------------------------------------------------------------ tables
    def add_table(self, spec: dict, where: str) -> Table:
        try:
            table = build_table(spec, self.server, self.database)
        except SpecError as e:
            raise SpecError(f"{where}: {e}" if where else str(e)) from None
        key = (table.database, table.name)
        old = self.tables.get(key)
        ids = self.settings["table_ids"] or {}
        given = spec.get("table_id")
        if given is None:
            given = ids.get(f"{table.database}.{table.name}", ids.get(table.name))
        if given is not None:
            table.table_id = int(given)
        elif old is not None:
            table.table_id = self.next_table_id  # a new definition: a new table id
            self.next_table_id += 1
        else:
            table.table_id = self.next_table_id
            self.next_table_id += 1
        self.tables[key] = table
        if key not in self.order:
            self.order.append(key)
        return table

    def table(self, name, ctx) -> Table:
        if not isinstance(name, str):
            raise SpecError(f"{where_of(ctx)}: a table name is a string")
        db, _, tname = name.rpartition(".")
        db = db or self.database
        key = (db, tname)
        if key not in self.tables:
            hits = [k for k in self.tables if k[1] == tname] if not db else []
            if len(hits) == 1:
                key = hits[0]
            else:
                raise SpecError(f"{where_of(ctx)}: no table {name!r} in the spec")
        return self.tables[key]

    # ------------------------------------------------------------------ rows
    def full_row(self, table: Table, given: dict, ctx) -> dict:
        """An inserted row: given values, else DEFAULT, else NULL, else the next
        AUTO_INCREMENT value."""
        key = (table.database, table.name)
        out = {}
        for col in table.columns:
            if col.index in given:
                v = given[col.index]
                if col.auto_increment and isinstance(v, int):
                    self.auto[key] = max(self.auto.get(key, 0), v)
                out[col.index] = v
                continue
            if col.auto_increment:
                self.auto[key] = self.auto.get(key, 0) + 1
                out[col.index] = col.convert(self.auto[key])
            elif col.has_default and not isinstance(col.default, dict):
                try:
                    out[col.index] = col.convert(col.default)
                except ValueProblem as e:
                    raise SpecError(f"{where_of(ctx)}, column {col.name}: DEFAULT: {e}") \
                        from None
            elif col.nullable:
                out[col.index] = None
            else:
                raise SpecError(f"{where_of(ctx)}, column {col.name}: no value for a NOT NULL "
                                "column without a DEFAULT")
        return out

    def matches(self, table, cond: dict, ctx):
        hits = self.state[(table.database, table.name)].find(cond)
        if not hits:
            shown = {table.columns[k].name: show_value(v) for k, v in cond.items()}
            raise SpecError(f"{where_of(ctx)}: no row of {table.name} matches {shown}")
        return hits

    # ------------------------------------------------------------------ changes
    def change(self, item: dict, ctx) -> Change:
        kinds = [k for k in ("insert", "update", "delete") if k in item]
        if len(kinds) != 1:
            raise SpecError(f"{where_of(ctx)}: a change has one of insert, update, delete")
        kind = kinds[0]
        unknown = set(item) - {kind, "rows", "statement"}
        if unknown:
            raise SpecError(f"{where_of(ctx)}: unknown key(s) {', '.join(sorted(unknown))}")
        table = self.table(item[kind], ctx)
        rows = item.get("rows")
        if not isinstance(rows, list) or not rows:
            raise SpecError(f"{where_of(ctx)}: {kind} needs rows (a non-empty list)")
        key = (table.database, table.name)
        state = self.state.setdefault(key, TableState(table))
        image = self.settings["binlog_row_image"]
        out = Change(kind, table, [], statement=item.get("statement"))
        given_cols = set()
        for n, row in enumerate(rows, 1):
            rctx = ctx + [f"table {table.name}", f"{kind} row {n}"]
            if kind == "insert":
                given = _convert_row(table, row, rctx)
                full = self.full_row(table, given, rctx)
                state.add(full, rctx)
                out.rows.append(full)
                given_cols.add(frozenset(given) if isinstance(row, dict)
                               else frozenset(range(len(table.columns))))
            elif kind == "update":
                if not isinstance(row, dict):
                    raise SpecError(f"{where_of(rctx)}: an update row is {{where, set}} or "
                                    "{before, after}")
                cond = row.get("where", row.get("before"))
                new = row.get("set", row.get("after"))
                if not isinstance(cond, (dict, list)) or not isinstance(new, (dict, list)):
                    raise SpecError(f"{where_of(rctx)}: an update row is {{where, set}} or "
                                    "{before, after}")
                cond = _convert_row(table, cond, rctx)
                new = _convert_row(table, new, rctx)
                for i in self.matches(table, cond, rctx):
                    before = state.rows[i]
                    after = {**before, **new}
                    state.replace(i, after, rctx)
                    out.rows.append((before, after))
                    given_cols.add(frozenset(k for k in new if not same_value(
                        table.columns[k], before[k], new[k])))
            else:
                if not isinstance(row, (dict, list)):
                    raise SpecError(f"{where_of(rctx)}: a delete row is a mapping or a list")
                cond = _convert_row(table, row.get("where", row) if isinstance(row, dict)
                                    else row, rctx)
                hits = self.matches(table, cond, rctx)
                out.rows.extend(state.rows[i] for i in hits)
                for i in hits:
                    state.remove(i)
        _image_columns(out, table, image, given_cols)
        return out

    # ------------------------------------------------------------------ the whole spec
    def load(self) -> Fixture:
        for t in self.spec.get("tables") or []:
            table = self.add_table(t, "")
            key = (table.database, table.name)
            self.state[key] = TableState(table)
            for n, row in enumerate(t.get("initial_rows") or [], 1):
                ctx = [f"table {table.name}", f"initial row {n}"]
                full = self.full_row(table, _convert_row(table, row, ctx), ctx)
                self.state[key].add(full, ctx)
        initial = {k: [dict(r) for r in st.list()] for k, st in self.state.items()}
        txs = []
        ts = self.settings["timestamp"]
        for n, item in enumerate(self.spec.get("transactions") or [], 1):
            ctx = [f"transaction {n}"]
            if not isinstance(item, dict):
                raise SpecError(f"transaction {n}: a mapping (changes: [...] or ddl: ...)")
            if any(k in item for k in ("insert", "update", "delete")):
                item = {"changes": [item]}
            unknown = set(item) - {"changes", "ddl", "database", "timestamp", "gtid"}
            if unknown:
                raise SpecError(f"transaction {n}: unknown key(s) "
                                f"{', '.join(sorted(unknown))}")
            if item.get("timestamp") is not None:
                try:
                    ts = int(item["timestamp"])
                except (TypeError, ValueError):
                    raise SpecError(f"transaction {n}: timestamp: a whole number (seconds "
                                    f"since the epoch), not {item['timestamp']!r}") from None
            elif n > 1:
                ts += 1
            tx = Transaction(n, ts, gtid=item.get("gtid"))
            if "ddl" in item:
                if "changes" in item:
                    raise SpecError(f"transaction {n}: ddl and changes in one transaction "
                                    "(DDL commits on its own)")
                self.ddl(tx, str(item["ddl"]), item.get("database"), ctx)
            else:
                changes = item.get("changes")
                if not isinstance(changes, list) or not changes:
                    raise SpecError(f"transaction {n}: no changes")
                for m, ch in enumerate(changes, 1):
                    if not isinstance(ch, dict):
                        raise SpecError(f"transaction {n}, change {m}: a mapping")
                    tx.changes.append(self.change(ch, ctx + [f"change {m}"]))
            txs.append(tx)
        state = {k: st.list() for k, st in self.state.items()}
        return Fixture(self.server, self.settings, self.database, dict(self.tables), txs,
                       state, initial, list(self.order), self.spec)

    def ddl(self, tx: Transaction, text: str, database, ctx):
        """A DDL statement: CREATE TABLE defines (or redefines) a table for the changes
        after it; ALTER TABLE ... ADD [COLUMN] column definition (one column, last) redefines
        it with that column added (a new table id; its rows keep their values, the new
        column its DEFAULT, else NULL); DROP TABLE forgets one; other statements are written
        as they are."""
        db = database or self.database
        tx.ddl, tx.ddl_database = text.strip().rstrip(";"), db
        try:
            stmts = parse_ddl(text, db)
        except DDLError as e:
            if re.match(r"\s*(CREATE\s+TABLE)", text, re.I):
                raise SpecError(f"{where_of(ctx)}: {e}") from None
            stmts = []
        for kind, value in stmts:
            if kind == "table":
                table = self.add_table(value, where_of(ctx))
                self.state[(table.database, table.name)] = TableState(table)
        m = re.fullmatch(r"\s*ALTER\s+TABLE\s+([`\w.$]+)\s+ADD\s+(?:COLUMN\s+)?(.+?)\s*;?\s*",
                         text, re.I | re.S)
        if m and not re.match(r"(INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL|"
                              r"CHECK)\b|\(", m.group(2), re.I):
            self.add_column(m.group(1).replace("`", ""), m.group(2), db, ctx)
        m = re.match(r"\s*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([`\w.$]+)", text, re.I)
        if m:
            name = m.group(1).replace("`", "")
            dbn, _, tname = name.rpartition(".")
            key = (dbn or db, tname)
            self.tables.pop(key, None)
            self.state.pop(key, None)

    def add_column(self, name: str, column_ddl: str, db, ctx):
        """ALTER TABLE name ADD COLUMN column_ddl: the table redefined with the column last,
        its rows carried over (the new column: its DEFAULT, else NULL)."""
        dbn, _, tname = name.rpartition(".")
        key = (dbn or db, tname)
        old = self.tables.get(key)
        if old is None:
            raise SpecError(f"{where_of(ctx)}: ALTER TABLE of unknown table {name}")
        try:
            parsed = tables_from_ddl(f"CREATE TABLE `{tname}` ({column_ddl})", key[0])
        except DDLError as e:
            raise SpecError(f"{where_of(ctx)}: {e}") from None
        new_spec = {k: v for k, v in copy.deepcopy(old.spec).items()
                    if k not in ("initial_rows", "table_id")}
        new_spec["columns"] = list(new_spec["columns"]) + parsed[0]["columns"]
        new_spec["database"] = key[0]
        table = self.add_table(new_spec, where_of(ctx))
        col = table.columns[-1]
        if col.has_default and not isinstance(col.default, dict):
            try:
                value = col.convert(col.default)
            except ValueProblem as e:
                raise SpecError(f"{where_of(ctx)}, column {col.name}: DEFAULT: {e}") from None
        elif col.nullable:
            value = None
        else:
            raise SpecError(f"{where_of(ctx)}: ALTER TABLE {name} ADD a NOT NULL column needs "
                            "a DEFAULT")
        state = TableState(table)
        old_state = self.state.get(key)
        for row in old_state.list() if old_state is not None else ():
            state.add({**row, col.index: value}, ctx)
        self.state[key] = state


def _image_columns(change: Change, table: Table, image: str, given_cols):
    """Which columns the before and after images hold (binlog_row_image)."""
    n = len(table.columns)
    every = tuple(range(n))
    key = table.server_key()
    blobs = {c.index for c in table.columns if c.base in TEXT_TYPES or c.base in BLOB_TYPES
             or c.base == "JSON" or c.base in ("GEOMETRY", "POINT", "LINESTRING", "POLYGON",
                                              "MULTIPOINT", "MULTILINESTRING",
                                              "MULTIPOLYGON", "GEOMETRYCOLLECTION")}
    pk_cols = set(key.columns) if key else set(every)
    if image == "FULL":
        before = after = every
    elif image == "MINIMAL":
        before = tuple(sorted(pk_cols))
        used = set().union(*given_cols) if given_cols else set()
        after = tuple(sorted(used)) if change.kind != "insert" else tuple(sorted(
            used | {c.index for c in table.columns if c.auto_increment}))
    else:  # NOBLOB
        before = tuple(i for i in every if i not in blobs or i in pk_cols)
        used = set().union(*given_cols) if given_cols else set()
        after = tuple(i for i in every if i not in blobs or i in used or i in pk_cols)
    if change.kind == "insert":
        change.after_columns = after
    elif change.kind == "update":
        change.before_columns, change.after_columns = before, after
    else:
        change.before_columns = before

