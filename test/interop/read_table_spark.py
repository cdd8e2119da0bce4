#!/usr/bin/env python3
"""Independent reader: open an Iceberg table through Spark SQL (Iceberg's Spark runtime) and print it as JSON.

Prints exactly one JSON object on stdout, as its last line, in the shape read_table.py prints
(see there), so the two readers are comparable:
  {"table", "format_version", "current_snapshot_id", "scanned_snapshot_id",
   "schema": [{"id", "name", "type", "required", "engine_type"}], "rows", "row_count",
   "snapshots": [...], "data_files": [...]}
Rows come from Spark SQL (`SELECT * FROM catalog.ns.t [VERSION AS OF id] [WHERE filter]`); the
schema's ids, Iceberg types and required flags, the snapshots and the data files come from the
Iceberg table Spark's catalog loaded. "engine_type" is Spark's SQL type of the column. With
--filter, data_files still lists every file of the scanned snapshot (Spark does not expose the
files its scan planned); the rows are the filtered ones.
Values follow read_table.py's rules: decimals as plain digit strings, dates and timestamps as ISO
8601 (timestamptz with +00:00), bytes as lowercase hex, non-finite floats as "NaN"/"Infinity"/
"-Infinity", ints as JSON numbers.

Catalogs: --catalog-type jdbc (--catalog-db, the SQLite file of Iceberg's JDBC catalog tables, read
only) or rest (--uri). For S3 storage: --s3-endpoint, and the keys and region from the usual
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION variables (never on the command line).
Errors go to stderr with exit code 1 (2 for bad arguments).
"""
from __future__ import annotations

import os
import time

# Before Spark starts: PySpark turns timestamps into datetimes in the process's local zone, and
# the JVM formats in its default zone; both must be UTC so values are never shifted.
os.environ["TZ"] = "UTC"
time.tzset()

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from decimal import Decimal  # noqa: E402
from typing import Any, Iterator  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog-type", choices=["jdbc", "rest"], default="jdbc")
    parser.add_argument("--catalog-db", help="jdbc: path of the SQLite catalog database")
    parser.add_argument("--uri", help="rest: catalog URI, e.g. http://127.0.0.1:8181")
    parser.add_argument("--warehouse", help="warehouse location (file:///…, s3://…)")
    parser.add_argument("--catalog-name", required=True, help="Spark catalog name = the JDBC catalog_name")
    parser.add_argument("--table", required=True, help="namespace.table (namespace may have dots)")
    parser.add_argument("--snapshot-id", type=int, default=None, help="scan this snapshot")
    parser.add_argument("--filter", default=None, help="a Spark SQL WHERE predicate, e.g. 'order_id > 500'")
    parser.add_argument("--jars", required=True, help="comma-separated jars: iceberg-spark-runtime, sqlite-jdbc, …")
    parser.add_argument("--s3-endpoint", default=None, help="S3 endpoint for S3FileIO (path-style access)")
    parser.add_argument("--driver-memory", default="768m")
    args = parser.parse_args(argv)
    if args.catalog_type == "jdbc" and not args.catalog_db:
        parser.error("--catalog-type jdbc needs --catalog-db")
    if args.catalog_type == "rest" and not args.uri:
        parser.error("--catalog-type rest needs --uri")
    return args


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def catalog_conf(args: argparse.Namespace) -> dict[str, str]:
    prefix = f"spark.sql.catalog.{args.catalog_name}"
    conf = {prefix: "org.apache.iceberg.spark.SparkCatalog", f"{prefix}.cache-enabled": "false"}
    if args.warehouse:
        conf[f"{prefix}.warehouse"] = args.warehouse
    if args.catalog_type == "jdbc":
        db_path = os.path.abspath(args.catalog_db)
        if not os.path.isfile(db_path):
            raise FileNotFoundError(f"catalog database not found: {db_path}")
        conf[f"{prefix}.type"] = "jdbc"
        conf[f"{prefix}.uri"] = f"jdbc:sqlite:{db_path}"
        # A reader must never change the catalog it checks: no table creation, a read-only
        # SQLite connection (sqlite-jdbc's open_mode 1 = SQLITE_OPEN_READONLY).
        conf[f"{prefix}.jdbc.init-catalog-tables"] = "false"
        conf[f"{prefix}.jdbc.open_mode"] = "1"
    else:
        conf[f"{prefix}.type"] = "rest"
        conf[f"{prefix}.uri"] = args.uri
    if args.s3_endpoint:
        conf[f"{prefix}.io-impl"] = "org.apache.iceberg.aws.s3.S3FileIO"
        conf[f"{prefix}.s3.endpoint"] = args.s3_endpoint
        conf[f"{prefix}.s3.path-style-access"] = "true"
        for env, key in (("AWS_ACCESS_KEY_ID", "s3.access-key-id"), ("AWS_SECRET_ACCESS_KEY", "s3.secret-access-key"), ("AWS_REGION", "client.region")):
            if os.environ.get(env):
                conf[f"{prefix}.{key}"] = os.environ[env]
    return conf


def start_spark(args: argparse.Namespace, scratch: str) -> Any:
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("thund-read-table")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", args.driver_memory)
        # A short-lived JVM: the C1 compiler alone and the serial GC halve a read on two cores.
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", os.path.join(scratch, "spark-warehouse"))
        .config("spark.local.dir", scratch)
        .config("spark.jars", args.jars)
    )
    for key, value in catalog_conf(args).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def java_iter(iterable: Any) -> Iterator[Any]:
    it = iterable.iterator()
    while it.hasNext():
        yield it.next()


def json_float(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def json_value(value: Any, data_type: Any) -> Any:
    """One value as collected by PySpark, converted by its Spark type to read_table.py's JSON form."""
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(data_type, (T.FloatType, T.DoubleType)):
        return json_float(float(value))
    if isinstance(data_type, T.DecimalType):
        return format(Decimal(value), "f")
    if isinstance(data_type, T.TimestampType):
        # A naive datetime in the process zone, which is UTC (see the top of this file).
        return value.replace(tzinfo=dt.timezone.utc).isoformat()
    if isinstance(data_type, T.TimestampNTZType):
        return value.isoformat()
    if isinstance(data_type, T.DateType):
        return value.isoformat()
    if isinstance(data_type, T.BinaryType):
        return bytes(value).hex()
    if isinstance(data_type, T.ArrayType):
        return [json_value(v, data_type.elementType) for v in value]
    if isinstance(data_type, T.MapType):
        return {str(json_value(k, data_type.keyType)): json_value(v, data_type.valueType) for k, v in value.items()}
    if isinstance(data_type, T.StructType):
        return {f.name: json_value(value[f.name], f.dataType) for f in data_type.fields}
    if isinstance(value, (bool, int, str)):
        return value
    raise TypeError(f"cannot convert {type(value).__name__} of Spark type {data_type.simpleString()} to JSON: {value!r}")


def load_iceberg_table(spark: Any, catalog_name: str, namespace: list[str], name: str) -> Any:
    """The Iceberg Java table behind Spark's catalog, for ids, types, snapshots and files."""
    jvm = spark._jvm
    names = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(namespace))
    for i, part in enumerate(namespace):
        names[i] = part
    identifier = jvm.org.apache.spark.sql.connector.catalog.Identifier.of(names, name)
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog(catalog_name)
    return catalog.loadTable(identifier).table()


def read(spark: Any, args: argparse.Namespace) -> dict[str, Any]:
    parts = args.table.split(".")
    if len(parts) < 2:
        raise ValueError(f"--table must be namespace.table, got {args.table!r}")
    namespace, name = parts[:-1], parts[-1]
    sql = "SELECT * FROM " + ".".join(quote(p) for p in [args.catalog_name, *parts])
    if args.snapshot_id is not None:
        sql += f" VERSION AS OF {int(args.snapshot_id)}"
    if args.filter:
        sql += f" WHERE {args.filter}"
    frame = spark.sql(sql)
    fields = frame.schema.fields
    rows = [{f.name: json_value(row[i], f.dataType) for i, f in enumerate(fields)} for row in frame.collect()]

    table = load_iceberg_table(spark, args.catalog_name, namespace, name)
    current = table.currentSnapshot()
    scanned_id = args.snapshot_id if args.snapshot_id is not None else (None if current is None else current.snapshotId())
    engine_types = {f.name: f.dataType.simpleString() for f in fields}
    scan = table.newScan()
    if scanned_id is not None:
        scan = scan.useSnapshot(scanned_id)
    data_files = []
    if scanned_id is not None:
        tasks = scan.planFiles()
        try:
            for task in java_iter(tasks):
                data_file = task.file()
                data_files.append(
                    {
                        "file_path": str(data_file.location()),
                        "record_count": int(data_file.recordCount()),
                        "file_size_in_bytes": int(data_file.fileSizeInBytes()),
                        "delete_file_count": int(task.deletes().size()),
                    }
                )
        finally:
            tasks.close()
    snapshots = []
    for s in java_iter(table.snapshots()):
        summary = s.summary()
        snapshots.append(
            {
                "snapshot_id": str(s.snapshotId()),
                "parent_snapshot_id": None if s.parentId() is None else str(s.parentId()),
                "sequence_number": int(s.sequenceNumber()),
                "timestamp_ms": int(s.timestampMillis()),
                # Like pyiceberg's summary, with the operation (Java keeps it apart from the map).
                "summary": {
                    **({} if s.operation() is None else {"operation": str(s.operation())}),
                    **{str(k): str(summary.get(k)) for k in java_iter(summary.keySet())},
                },
            }
        )
    return {
        "table": args.table,
        "format_version": int(table.operations().current().formatVersion()),
        "current_snapshot_id": None if current is None else str(current.snapshotId()),
        "scanned_snapshot_id": None if scanned_id is None else str(scanned_id),
        "schema": [
            {
                "id": int(f.fieldId()),
                "name": str(f.name()),
                "type": str(f.type().toString()),
                "required": bool(f.isRequired()),
                "engine_type": engine_types.get(str(f.name()), ""),
            }
            for f in java_iter(table.schema().columns())
        ],
        "rows": rows,
        "row_count": len(rows),
        "snapshots": snapshots,
        "data_files": data_files,
    }


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="thund-spark-") as scratch:
            spark = start_spark(args, scratch)
            try:
                result = read(spark, args)
            finally:
                spark.stop()
    except Exception as exc:  # noqa: BLE001 — the caller shows this text to a person
        message = str(exc).strip().splitlines()
        print(f"read_table_spark.py: {args.table}: {type(exc).__name__}: {' | '.join(message[:12])}", file=sys.stderr)
        return 1
    sys.stdout.write("\n")
    json.dump(result, sys.stdout, allow_nan=False, separators=(",", ":"))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
