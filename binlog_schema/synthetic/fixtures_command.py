"""What ``binlog-schema fixtures`` does (declared in ``binlog_schema/cli/fixtures.py``):
synthetic binlogs from a spec, at random, or a spec's tables from DDL."""

from __future__ import annotations

import os
import sys

import yaml

from ..output.statuses import CLEAN, STOPPED, USAGE
from ..output.stats_write import write_whole


def _dump(doc) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def _write_text(path, text):
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        write_whole(path, text)


def cmd_fixtures(args) -> int:
    from ..changes.schema.ddl.tables import tables_from_ddl
    from ..changes.schema.ddl.tokens import DDLError
    from .servers import SERVERS, ServerError, server_for
    from .fixture import SpecError
    try:
        if args.list_servers:
            for key, s in SERVERS.items():
                print(f"{key:15} {s.version:24} FDE post-headers from {s.source}")
            return CLEAN
        if args.from_ddl:
            with open(args.from_ddl, encoding="utf-8") as f:
                tables = tables_from_ddl(f.read(), args.database)
            if not tables:
                print(f"fixtures: {args.from_ddl}: no CREATE TABLE statement", file=sys.stderr)
                return STOPPED
            doc = {"server": args.flavor or "mysql-8.0"}
            dbs = {t.get("database") for t in tables} - {None}
            if len(dbs) == 1:
                doc["database"] = dbs.pop()
                for t in tables:
                    t.pop("database", None)
            doc["tables"] = tables
            doc["transactions"] = []
            server_for(doc["server"])
            _write_text(args.output, _dump(doc))
            return CLEAN
        if args.random:
            from .writer import generate
            from .randomspec import random_spec
            if not args.output:
                print("fixtures --random needs -o DIR", file=sys.stderr)
                return USAGE
            spec = random_spec(args.seed, tables=args.tables, transactions=args.transactions,
                               flavor=args.flavor or "mysql-8.0", rows=args.rows,
                               types=args.types)
            os.makedirs(args.output, exist_ok=True)
            spec_path = os.path.join(args.output, "spec.yaml")
            _write_text(spec_path, _dump(spec))
            name = spec["settings"]["file_name"]
            data = generate(spec)
            write_whole(os.path.join(args.output, name), data)
            print(f"{os.path.join(args.output, name)}: {len(data)} bytes "
                  f"({len(spec['transactions'])} transactions, {len(spec['tables'])} tables); "
                  f"spec in {spec_path}")
            return CLEAN
        if not args.spec:
            print("fixtures: give SPEC.yaml, --random, --from-ddl or --list-servers",
                  file=sys.stderr)
            return USAGE
        from .spec import load_spec
        fixture = load_spec(args.spec)
        if args.sql:
            from .sql import schema_sql
            _write_text(args.output, schema_sql(fixture))
            return CLEAN
        if args.event is not None:
            from .vector import event_vector
            _write_text(args.output, "---\n" + _dump(event_vector(fixture, args.event)))
            return CLEAN
        from .writer import generate
        if not args.output:
            print("fixtures: -o FILE is needed for the binlog", file=sys.stderr)
            return USAGE
        data = generate(fixture)
        write_whole(args.output, data)
        print(f"{args.output}: {len(data)} bytes, {len(fixture.transactions)} transactions "
              f"({fixture.server.key}, {fixture.server.version})")
        return CLEAN
    except (SpecError, DDLError, ServerError) as e:
        print(f"fixtures: {e}", file=sys.stderr)
        return STOPPED
    except OSError as e:  # (a file that cannot be read or written)
        where = f"{e.filename}: " if e.filename else ""
        print(f"fixtures: {where}{(e.strerror or str(e)).lower()}", file=sys.stderr)
        return STOPPED
    except UnicodeDecodeError as e:
        print(f"fixtures: {args.from_ddl or args.spec}: not text (UTF-8): {e.reason} at byte "
              f"{e.start}", file=sys.stderr)
        return STOPPED
