#!/usr/bin/env python3
"""One long-lived Spark session (Spark 4.1, Iceberg's 4.1 runtime) for the format v3 interop tests.

The Iceberg JDBC catalog named --catalog-name on the SQLite file Thund's embedded catalog writes
(read and written: Spark creates tables in it too), Iceberg's SQL extensions, local[2], UTC.

Reads one JSON command per line on stdin and answers each with one line on stdout,
    @@spark_v3@@ {"ok": true, "result": ...}   or   @@spark_v3@@ {"ok": false, "error": "..."}
(Spark may print its own chatter; only lines with the marker are answers). Commands:
  {"op": "sql", "sql": "...", "collect": true|false}
      runs one statement; with collect, the rows as {"columns": [...], "rows": [{...}]}, values
      in read_table_spark.py's JSON forms (longs as decimal strings, so none loses precision)
  {"op": "files", "table": "ns.t"}
      the table as Iceberg's Java library loads it now: format version, next-row-id, snapshots,
      and per live data file of the current snapshot its deletes (DVs with offset and length)
  {"op": "equality_deletes", "table": "ns.t", "columns": ["c", ...], "rows": [["v", ...], ...]}
      writes one equality delete file (Parquet, by Iceberg's generic writer) with these rows and
      commits it as a row delta; values are text, converted by ThundEqualityDeletes.java
  {"op": "stop"}
The session stops at end of input too.
"""
from __future__ import annotations

import os
import time

# Before Spark starts: PySpark turns timestamps into datetimes in the process's local zone.
os.environ["TZ"] = "UTC"
time.tzset()

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402
from decimal import Decimal  # noqa: E402
from typing import Any, Iterator  # noqa: E402

MARKER = "@@spark_v3@@ "


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog-db", required=True, help="the SQLite file of the Iceberg JDBC catalog")
    parser.add_argument("--warehouse", required=True, help="warehouse URI (file:///…) for tables Spark creates")
    parser.add_argument("--catalog-name", default="default", help="Spark catalog name = the JDBC catalog_name")
    parser.add_argument("--jars", required=True, help="comma-separated jars: iceberg-spark-runtime-4.1, sqlite-jdbc")
    parser.add_argument("--helper-classes", required=True, help="folder with the compiled ThundEqualityDeletes class")
    parser.add_argument("--driver-memory", default="1g")
    return parser.parse_args(argv)


def start_spark(args: argparse.Namespace, scratch: str) -> Any:
    from pyspark.sql import SparkSession

    prefix = f"spark.sql.catalog.{args.catalog_name}"
    jars = args.jars.split(",")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("thund-v3-interop")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # The helper class must see Iceberg's classes from the same loader: both on the driver's classpath.
        .config("spark.driver.extraClassPath", ":".join([*jars, args.helper_classes]))
        .config("spark.jars", args.jars)
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", os.path.join(scratch, "spark-warehouse"))
        .config("spark.local.dir", scratch)
        .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
        .config(f"{prefix}.type", "jdbc")
        .config(f"{prefix}.uri", f"jdbc:sqlite:{os.path.abspath(args.catalog_db)}")
        .config(f"{prefix}.warehouse", args.warehouse)
        # Thund commits to the same catalog between Spark's statements: never serve a cached table.
        .config(f"{prefix}.cache-enabled", "false")
    )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def java_iter(iterable: Any) -> Iterator[Any]:
    it = iterable.iterator()
    while it.hasNext():
        yield it.next()


def json_value(value: Any, data_type: Any) -> Any:
    """A value collected by PySpark as JSON: longs and decimals as text, so nothing loses precision."""
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(data_type, (T.FloatType, T.DoubleType)):
        v = float(value)
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(data_type, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return str(int(value))
    if isinstance(data_type, T.DecimalType):
        return format(Decimal(value), "f")
    if isinstance(data_type, T.TimestampType):
        return value.replace(tzinfo=dt.timezone.utc).isoformat()
    if isinstance(data_type, (T.TimestampNTZType, T.DateType)):
        return value.isoformat()
    if isinstance(data_type, T.BinaryType):
        return bytes(value).hex()
    if isinstance(data_type, T.ArrayType):
        return [json_value(v, data_type.elementType) for v in value]
    if isinstance(data_type, T.MapType):
        return {str(json_value(k, data_type.keyType)): json_value(v, data_type.valueType) for k, v in value.items()}
    if isinstance(data_type, T.StructType):
        return {f.name: json_value(value[f.name], f.dataType) for f in data_type.fields}
    if isinstance(value, (bool, str)):
        return value
    raise TypeError(f"cannot convert {type(value).__name__} of Spark type {data_type.simpleString()} to JSON: {value!r}")


def run_sql(spark: Any, cmd: dict[str, Any]) -> Any:
    frame = spark.sql(cmd["sql"])
    if not cmd.get("collect", False):
        return None
    fields = frame.schema.fields
    rows = [{f.name: json_value(row[i], f.dataType) for i, f in enumerate(fields)} for row in frame.collect()]
    return {"columns": [f.name for f in fields], "rows": rows}


def load_table(spark: Any, catalog_name: str, table: str) -> Any:
    """The Iceberg Java table behind Spark's catalog, loaded afresh from the catalog."""
    parts = table.split(".")
    namespace, name = parts[:-1], parts[-1]
    jvm = spark._jvm
    names = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(namespace))
    for i, part in enumerate(namespace):
        names[i] = part
    identifier = jvm.org.apache.spark.sql.connector.catalog.Identifier.of(names, name)
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog(catalog_name)
    return catalog.loadTable(identifier).table()


def opt_long(value: Any) -> Any:
    return None if value is None else str(int(value))


def delete_json(delete: Any) -> dict[str, Any]:
    ids = delete.equalityFieldIds()
    return {
        "path": str(delete.location()),
        "content": str(delete.content().toString()),
        "format": str(delete.format().toString()),
        "record_count": str(delete.recordCount()),
        "file_size_in_bytes": str(delete.fileSizeInBytes()),
        "referenced_data_file": None if delete.referencedDataFile() is None else str(delete.referencedDataFile()),
        "content_offset": opt_long(delete.contentOffset()),
        "content_size_in_bytes": opt_long(delete.contentSizeInBytes()),
        "equality_field_ids": [] if ids is None else [int(i) for i in java_iter(ids)],
        "data_sequence_number": opt_long(delete.dataSequenceNumber()),
    }


def table_files(spark: Any, catalog_name: str, table_name: str) -> dict[str, Any]:
    table = load_table(spark, catalog_name, table_name)
    metadata = table.operations().current()
    current = table.currentSnapshot()
    files = []
    if current is not None:
        tasks = table.newScan().planFiles()
        try:
            for task in java_iter(tasks):
                data = task.file()
                files.append(
                    {
                        "path": str(data.location()),
                        "record_count": str(data.recordCount()),
                        "first_row_id": opt_long(data.firstRowId()),
                        "data_sequence_number": opt_long(data.dataSequenceNumber()),
                        "spec_id": int(data.specId()),
                        "deletes": [delete_json(d) for d in java_iter(task.deletes())],
                    }
                )
        finally:
            tasks.close()
    snapshots = []
    for s in java_iter(table.snapshots()):
        snapshots.append(
            {
                "snapshot_id": str(s.snapshotId()),
                "sequence_number": str(s.sequenceNumber()),
                "first_row_id": opt_long(s.firstRowId()),
                "added_rows": opt_long(s.addedRows()),
                "operation": None if s.operation() is None else str(s.operation()),
                "summary": {str(k): str(s.summary().get(k)) for k in java_iter(s.summary().keySet())},
            }
        )
    return {
        "format_version": int(metadata.formatVersion()),
        "next_row_id": opt_long(metadata.nextRowId()),
        "current_snapshot_id": None if current is None else str(current.snapshotId()),
        "metadata_location": str(metadata.metadataFileLocation()),
        "snapshots": snapshots,
        "data_files": files,
    }


def equality_deletes(spark: Any, catalog_name: str, cmd: dict[str, Any]) -> Any:
    table = load_table(spark, catalog_name, cmd["table"])
    rows = "\n".join("\t".join("\\N" if v is None else str(v) for v in row) for row in cmd["rows"])
    written = spark._jvm.ThundEqualityDeletes.write(table, ",".join(cmd["columns"]), rows)
    return json.loads(str(written))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    out = sys.stdout

    def answer(payload: dict[str, Any]) -> None:
        out.write(MARKER + json.dumps(payload, allow_nan=False, separators=(",", ":")) + "\n")
        out.flush()

    with tempfile.TemporaryDirectory(prefix="thund-spark-v3-") as scratch:
        try:
            spark = start_spark(args, scratch)
        except Exception as exc:  # noqa: BLE001
            answer({"ok": False, "error": f"Spark did not start: {type(exc).__name__}: {exc}"})
            return 1
        answer({"ok": True, "result": {"spark": spark.version}})
        try:
            for line in sys.stdin:
                if line.strip() == "":
                    continue
                cmd = json.loads(line)
                op = cmd.get("op")
                if op == "stop":
                    answer({"ok": True, "result": None})
                    break
                try:
                    if op == "sql":
                        result = run_sql(spark, cmd)
                    elif op == "files":
                        result = table_files(spark, args.catalog_name, cmd["table"])
                    elif op == "equality_deletes":
                        result = equality_deletes(spark, args.catalog_name, cmd)
                    else:
                        raise ValueError(f"unknown op {op!r}")
                    answer({"ok": True, "result": result})
                except Exception as exc:  # noqa: BLE001 — the test shows this text to a person
                    lines = str(exc).strip().splitlines()
                    print(traceback.format_exc(), file=sys.stderr)
                    answer({"ok": False, "error": f"{type(exc).__name__}: {' | '.join(lines[:20])}"})
        finally:
            spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
