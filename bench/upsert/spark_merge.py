#!/usr/bin/env python3
"""Spark side of bench/upsert: load the base rows into an Iceberg table of --format-version (2:
position delete files, 3: deletion vectors) (untimed), then time `MERGE INTO` merge-on-read with the
change rows. Prints one JSON line: {"merge_seconds", "rows", "distinct_ids", "format_version",
"added_delete_files", "added_dvs", "added_position_delete_files" (from the MERGE snapshot's summary),
"live_delete_formats" (the table's live delete files by file format, from its delete_files table)}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from spark_bench import local_session  # noqa: E402  (bench/spark_bench.py)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jars", required=True)
    parser.add_argument("--warehouse", required=True, help="local folder for Spark's Hadoop catalog")
    parser.add_argument("--base", required=True, help="Parquet file of the table's rows")
    parser.add_argument("--changes", required=True, help="Parquet file of the upsert rows")
    parser.add_argument("--bucket", type=int, default=0, help="partition by bucket(N, id); 0 = unpartitioned")
    parser.add_argument("--format-version", type=int, choices=(2, 3), default=2)
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args(argv)

    spark = local_session("thund-bench-upsert", jars=args.jars, warehouse=args.warehouse, driver_memory=args.driver_memory, extensions=True)
    try:
        spark.sql(
            "CREATE TABLE bench.db.orders (id BIGINT, customer STRING, amount DECIMAL(12,2), ordered_at TIMESTAMP, qty INT) "
            "USING iceberg "
            + (f"PARTITIONED BY (bucket({args.bucket}, id)) " if args.bucket > 0 else "")
            + f"TBLPROPERTIES ('format-version'='{args.format_version}', "
            "'write.merge.mode'='merge-on-read', "
            "'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
        )
        spark.sql(f"INSERT INTO bench.db.orders SELECT * FROM parquet.`{args.base}`")
        started = time.perf_counter()
        spark.sql(
            f"MERGE INTO bench.db.orders t USING (SELECT * FROM parquet.`{args.changes}`) s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        )
        merge_seconds = time.perf_counter() - started
        counts = spark.sql("SELECT count(*) AS n, count(DISTINCT id) AS d FROM bench.db.orders").collect()[0]
        summary = spark.sql("SELECT summary FROM bench.db.orders.snapshots ORDER BY committed_at DESC LIMIT 1").collect()[0][0]
        live = spark.sql("SELECT file_format, count(*) AS n FROM bench.db.orders.delete_files GROUP BY file_format").collect()
        version = spark.sql("SHOW TBLPROPERTIES bench.db.orders ('format-version')").collect()[0]["value"]
        print(json.dumps({
            "merge_seconds": merge_seconds,
            "rows": int(counts["n"]),
            "distinct_ids": int(counts["d"]),
            "format_version": int(version),
            "added_delete_files": int(summary.get("added-delete-files", "0")),
            "added_dvs": int(summary.get("added-dvs", "0")),
            "added_position_delete_files": int(summary.get("added-position-delete-files", "0")),
            "live_delete_formats": {str(row["file_format"]): int(row["n"]) for row in live},
        }))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
