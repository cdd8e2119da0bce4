#!/usr/bin/env python3
"""Spark side of bench/kafka: Spark Structured Streaming (local[2]) reads a topic from its earliest
offsets with trigger available-now and appends the decoded JSON values, with each record's topic,
partition, offset, timestamp and key (the columns `thund serve` lands), into an Iceberg table of a
local Hadoop catalog. Prints one JSON line:
{"records", "distinct_keys", "query_seconds", "session_seconds", "batches", "duration_ms"}.
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

VALUE_SCHEMA = "id BIGINT, name STRING, amount DOUBLE, city STRING, note STRING"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jars", required=True, help="comma-separated: Iceberg runtime, Kafka connector and its dependencies")
    parser.add_argument("--warehouse", required=True, help="local folder for the Hadoop catalog and the checkpoint")
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--driver-memory", default="1g")
    parser.add_argument("--max-offsets-per-trigger", type=int, default=0, help="0: one micro-batch for everything available")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    session_started = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("thund-bench-kafka-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.local.dir", os.path.join(args.warehouse, "spark-local"))
        .config("spark.jars", args.jars)
        .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.bench.type", "hadoop")
        .config("spark.sql.catalog.bench.warehouse", "file://" + os.path.abspath(args.warehouse))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    session_seconds = time.perf_counter() - session_started
    try:
        spark.sql(
            f"CREATE TABLE bench.kafka.events ({VALUE_SCHEMA}, _kafka_topic STRING, _kafka_partition INT, _kafka_offset BIGINT, _kafka_timestamp BIGINT, _kafka_key STRING) "
            "USING iceberg TBLPROPERTIES ('format-version'='2')"
        )
        reader = (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", args.brokers)
            .option("subscribe", args.topic)
            .option("startingOffsets", "earliest")
            .option("failOnDataLoss", "true")
        )
        if args.max_offsets_per_trigger > 0:
            reader = reader.option("maxOffsetsPerTrigger", str(args.max_offsets_per_trigger))
        rows = reader.load().select(
            F.from_json(F.col("value").cast("string"), VALUE_SCHEMA).alias("v"),
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
        query.awaitTermination()
        query_seconds = time.perf_counter() - started
        if query.exception() is not None:
            raise RuntimeError(str(query.exception()))
        progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
        batches = len(progress)
        # Where the query's time went, summed over its batches (addBatch, latestOffset, queryPlanning, walCommit, ...).
        durations: dict[str, int] = {}
        for p in progress:
            for key, value in p["durationMs"].items():
                durations[key] = durations.get(key, 0) + int(value)
        counted = spark.sql("SELECT count(*) AS n, count(DISTINCT _kafka_key) AS k FROM bench.kafka.events").collect()[0]
        print(json.dumps({
            "records": counted["n"],
            "distinct_keys": counted["k"],
            "query_seconds": query_seconds,
            "session_seconds": session_seconds,
            "batches": batches,
            "duration_ms": durations,
        }))
        return 0
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
