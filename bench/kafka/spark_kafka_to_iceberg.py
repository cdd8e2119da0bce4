#!/usr/bin/env python3
"""Spark side of bench/kafka: Spark Structured Streaming (local[2]) reads a topic from its earliest
offsets with trigger available-now and appends the decoded values (JSON with from_json, or with
--avro-schema Confluent Avro with spark-avro's from_avro over the bytes after the 5-byte header),
with each record's topic, partition, offset, timestamp and key (the columns `thund serve` lands),
into an Iceberg table of a local Hadoop catalog. Prints one JSON line:
{"records", "distinct_keys", "digest", "query_seconds", "session_seconds", "batches", "input_rows", "duration_ms"},
digest being the one row of --digest-select over the landed table.
query_seconds runs from the query's start to its end (JVM start and session creation excluded, as
the Thund figure excludes the service's start); session_seconds is the session creation.
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

from spark_bench import add_kafka_arguments, await_available_now, kafka_stream, local_session  # noqa: E402  (bench/spark_bench.py)

VALUE_SCHEMA = "id BIGINT, name STRING, amount DOUBLE, city STRING, note STRING"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_kafka_arguments(parser, driver_memory="1g", max_offsets_per_trigger=0)
    parser.add_argument("--avro-schema", help="the values' Avro writer schema (JSON): Confluent Avro values; JSON values without it")
    parser.add_argument("--digest-select", required=True, help="a select list over the landed table, printed as digest")
    args = parser.parse_args(argv)

    from pyspark.sql import functions as F

    session_started = time.perf_counter()
    spark = local_session("thund-bench-kafka-spark", jars=args.jars, warehouse=args.warehouse, driver_memory=args.driver_memory, shuffle_partitions=2)
    session_seconds = time.perf_counter() - session_started
    if args.avro_schema is None:
        decoded = F.from_json(F.col("value").cast("string"), VALUE_SCHEMA)
    else:
        from pyspark.sql.avro.functions import from_avro

        decoded = from_avro(F.expr("substring(value, 6)"), args.avro_schema)
    try:
        spark.sql(
            f"CREATE TABLE bench.kafka.events ({VALUE_SCHEMA}, _kafka_topic STRING, _kafka_partition INT, _kafka_offset BIGINT, _kafka_timestamp BIGINT, _kafka_key STRING) "
            "USING iceberg TBLPROPERTIES ('format-version'='2')"
        )
        rows = kafka_stream(spark, args.brokers, args.topic, args.max_offsets_per_trigger).select(
            decoded.alias("v"),
            F.col("topic").alias("_kafka_topic"),
            F.col("partition").alias("_kafka_partition"),
            F.col("offset").alias("_kafka_offset"),
            F.unix_millis(F.col("timestamp")).alias("_kafka_timestamp"),
            F.col("key").cast("string").alias("_kafka_key"),
        ).select("v.*", "_kafka_topic", "_kafka_partition", "_kafka_offset", "_kafka_timestamp", "_kafka_key")

        started = time.perf_counter()
        query = (
            rows.writeStream.format("iceberg")
            .outputMode("append")
            .trigger(availableNow=True)
            .option("checkpointLocation", os.path.join(args.warehouse, "checkpoint"))
            .toTable("bench.kafka.events")
        )
        finished = await_available_now(query, started)
        counted = spark.sql("SELECT count(*) AS n, count(DISTINCT _kafka_key) AS k FROM bench.kafka.events").collect()[0]
        digest = spark.sql(f"SELECT {args.digest_select} FROM bench.kafka.events").collect()[0].asDict()
        print(json.dumps({
            "records": counted["n"],
            "distinct_keys": counted["k"],
            "digest": {name: (value if isinstance(value, (int, float)) or value is None else str(value)) for name, value in digest.items()},
            "session_seconds": session_seconds,
            **finished,
        }))
        return 0
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
