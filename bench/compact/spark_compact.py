#!/usr/bin/env python3
"""Spark side of bench/compact: open Thund's embedded catalog (its SQLite file, as Iceberg's JDBC
catalog) and time `CALL <catalog>.system.rewrite_data_files` on --table with every data file that
has a delete file rewritten (delete-file-threshold 1). Prints one JSON line:
{"seconds" (the CALL alone), "rewritten_files", "added_files", "rewritten_bytes"}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jars", required=True, help="comma-separated: Iceberg Spark runtime, sqlite-jdbc")
    parser.add_argument("--catalog-db", required=True)
    parser.add_argument("--warehouse", required=True, help="warehouse URI (file:///…)")
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--table", required=True, help="namespace.table")
    parser.add_argument("--driver-memory", default="4g")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    prefix = "spark.sql.catalog.default"
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("thund-bench-compact")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.driver.extraClassPath", ":".join(args.jars.split(",")))
        .config("spark.jars", args.jars)
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.local.dir", args.scratch)
        .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
        .config(f"{prefix}.type", "jdbc")
        .config(f"{prefix}.uri", f"jdbc:sqlite:{os.path.abspath(args.catalog_db)}")
        .config(f"{prefix}.warehouse", args.warehouse)
        .config(f"{prefix}.cache-enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        started = time.perf_counter()
        row = spark.sql(
            f"CALL default.system.rewrite_data_files(table => '{args.table}', "
            "options => map('delete-file-threshold', '1', 'min-input-files', '1'))"
        ).collect()[0]
        seconds = time.perf_counter() - started
        print(json.dumps({
            "seconds": seconds,
            "rewritten_files": int(row["rewritten_data_files_count"]),
            "added_files": int(row["added_data_files_count"]),
            "rewritten_bytes": int(row["rewritten_bytes_count"]),
        }))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
