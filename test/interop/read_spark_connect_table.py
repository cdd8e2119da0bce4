#!/usr/bin/env python3
"""Reads one table through a Spark Connect server and prints its rows as JSON lines.

    read_spark_connect_table.py sc://host:port catalog.ns.table [spark.conf.key=value ...]
"""
from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from pyspark.sql import SparkSession

    remote, table, *settings = argv
    spark = SparkSession.builder.remote(remote).getOrCreate()
    for setting in settings:
        key, value = setting.split("=", 1)
        spark.conf.set(key, value)
    for row in spark.table(table).collect():
        print(json.dumps(row.asDict(recursive=True), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
