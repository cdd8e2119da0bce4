#!/usr/bin/env python3
"""Independent reader: open an Iceberg table through pyiceberg (SqlCatalog or RestCatalog) and print it as JSON.

Prints exactly one JSON object on stdout:
  {"table": "ns.t", "format_version", "current_snapshot_id": str|null, "scanned_snapshot_id": str|null,
   "schema": [{"id", "name", "type", "required"}],
   "rows": [{column: value}], "row_count",
   "snapshots": [{"snapshot_id", "parent_snapshot_id", "sequence_number", "timestamp_ms", "summary"}],
   "data_files": [{"file_path", "record_count", "file_size_in_bytes", "delete_file_count"}]}
Values are JSON-safe: decimals as strings, dates/times/timestamps as ISO 8601 strings (Python's
isoformat; nanosecond timestamps keep 9 fraction digits), bytes as lowercase hex, UUIDs as
canonical strings, non-finite floats as "NaN"/"Infinity"/"-Infinity", ints as JSON numbers.
Rows stay in scan order: callers sort. With --filter, rows and data_files are those of the filtered
scan (files pruned by their manifest bounds are not listed). Errors go to stderr with exit code 1 (2 for bad arguments).

Catalogs: --catalog-type sql (--catalog-db, the SQLite file of the JDBC catalog tables, opened read
only, and --warehouse) or rest (--uri). For S3 storage: --s3-endpoint (path-style access), and the
keys and region from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION (never on the command line).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import sys
import uuid
from decimal import Decimal
from typing import Any

import pyarrow as pa
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.catalog.sql import SqlCatalog


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog-type", choices=["sql", "rest"], default="sql")
    parser.add_argument("--catalog-db", help="sql: path of the SQLite catalog database")
    parser.add_argument("--warehouse", help="sql: warehouse URI (file:///… or a path); rest: the warehouse sent to /v1/config")
    parser.add_argument("--uri", help="rest: catalog URI, e.g. http://127.0.0.1:8181")
    parser.add_argument("--s3-endpoint", default=None, help="S3 endpoint for the table files (path-style access)")
    parser.add_argument("--catalog-name", required=True, help="sql: catalog_name column in iceberg_tables; rest: a label")
    parser.add_argument("--table", required=True, help="namespace.table (namespace may have dots)")
    parser.add_argument("--snapshot-id", type=int, default=None, help="scan this snapshot")
    parser.add_argument("--filter", default=None, help="row filter in pyiceberg's syntax, e.g. 'order_id > 500'")
    args = parser.parse_args(argv)
    if args.catalog_type == "sql" and not (args.catalog_db and args.warehouse):
        parser.error("--catalog-type sql needs --catalog-db and --warehouse")
    if args.catalog_type == "rest" and not args.uri:
        parser.error("--catalog-type rest needs --uri")
    return args


def json_value(value: Any) -> Any:
    """Convert one Python value from Arrow's to_pylist() to a JSON-safe value."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, Decimal):
        return format(value, "f")  # plain digits: str() would print 1E-7 for small values
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    raise TypeError(f"cannot convert {type(value).__name__} to JSON: {value!r}")


def nanos_column(column: pa.ChunkedArray, tz: str | None) -> list[Any]:
    """Nanosecond timestamps: to_pylist() would need pandas or lose digits, so format by hand."""
    out: list[Any] = []
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc if tz else None)
    for nanos in column.cast(pa.int64()).to_pylist():
        if nanos is None:
            out.append(None)
            continue
        seconds, frac = divmod(nanos, 1_000_000_000)
        text = (epoch + dt.timedelta(seconds=seconds)).isoformat()
        date_time, sep, offset = text.partition("+")
        out.append(f"{date_time}.{frac:09d}{sep}{offset}")
    return out


def column_values(column: pa.ChunkedArray) -> list[Any]:
    if pa.types.is_timestamp(column.type) and column.type.unit == "ns":
        return nanos_column(column, column.type.tz)
    return [json_value(v) for v in column.to_pylist()]


def table_rows(data: pa.Table) -> list[dict[str, Any]]:
    columns = {name: column_values(data.column(name)) for name in data.column_names}
    return [{name: values[i] for name, values in columns.items()} for i in range(data.num_rows)]


def s3_properties(args: argparse.Namespace) -> dict[str, str]:
    """pyiceberg's S3 settings: the endpoint from the command line, keys and region from the environment."""
    if not args.s3_endpoint:
        return {}
    props = {"s3.endpoint": args.s3_endpoint, "s3.path-style-access": "true"}
    for env, key in (("AWS_ACCESS_KEY_ID", "s3.access-key-id"), ("AWS_SECRET_ACCESS_KEY", "s3.secret-access-key"), ("AWS_REGION", "s3.region")):
        if os.environ.get(env):
            props[key] = os.environ[env]
    return props


def open_catalog(args: argparse.Namespace) -> Catalog:
    if args.catalog_type == "rest":
        props = {"uri": args.uri, **s3_properties(args)}
        if args.warehouse:
            props["warehouse"] = args.warehouse
        return RestCatalog(args.catalog_name, **props)
    db_path = os.path.abspath(args.catalog_db)
    if not os.path.isfile(db_path):
        raise FileNotFoundError(f"catalog database not found: {db_path}")
    # Read-only and no table creation: a reader must never change the catalog it checks.
    return SqlCatalog(
        args.catalog_name,
        uri=f"sqlite:///file:{db_path}?mode=ro&uri=true",
        warehouse=args.warehouse,
        init_catalog_tables="false",
        **s3_properties(args),
    )


def read(args: argparse.Namespace) -> dict[str, Any]:
    catalog = open_catalog(args)
    identifier = tuple(args.table.split("."))
    if len(identifier) < 2:
        raise ValueError(f"--table must be namespace.table, got {args.table!r}")
    table = catalog.load_table(identifier)
    if args.filter is None:
        scan = table.scan(snapshot_id=args.snapshot_id)
    else:
        scan = table.scan(snapshot_id=args.snapshot_id, row_filter=args.filter)
    data = scan.to_arrow()
    tasks = list(scan.plan_files())
    scanned = scan.snapshot()
    current = table.current_snapshot()
    return {
        "table": args.table,
        "format_version": table.metadata.format_version,
        "current_snapshot_id": None if current is None else str(current.snapshot_id),
        "scanned_snapshot_id": None if scanned is None else str(scanned.snapshot_id),
        "schema": [
            {"id": f.field_id, "name": f.name, "type": str(f.field_type), "required": f.required}
            for f in table.schema().fields
        ],
        "rows": table_rows(data),
        "row_count": data.num_rows,
        "snapshots": [
            {
                "snapshot_id": str(s.snapshot_id),
                "parent_snapshot_id": None if s.parent_snapshot_id is None else str(s.parent_snapshot_id),
                "sequence_number": s.sequence_number,
                "timestamp_ms": s.timestamp_ms,
                "summary": {} if s.summary is None else {k: str(v) for k, v in s.summary.model_dump().items()},
            }
            for s in table.metadata.snapshots
        ],
        "data_files": [
            {
                "file_path": t.file.file_path,
                "record_count": t.file.record_count,
                "file_size_in_bytes": t.file.file_size_in_bytes,
                "delete_file_count": len(t.delete_files),
            }
            for t in tasks
        ],
    }


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        result = read(args)
    except Exception as exc:  # noqa: BLE001 — the caller shows this text to a person
        print(f"read_table.py: {args.table}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, allow_nan=False, separators=(",", ":"))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
