"""What the Spark references of the benchmarks share: a local[2] session (UTC, no UI, loopback)
with an Iceberg Hadoop catalog named `bench` in a local folder, and a Kafka topic read as a stream
from its earliest offsets. Imported by the scripts in bench/*/ (each puts bench/ on sys.path).
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Any


def add_kafka_arguments(parser: argparse.ArgumentParser, *, driver_memory: str, max_offsets_per_trigger: int) -> None:
    """The options of a script that streams a topic into the `bench` catalog: jars, warehouse,
    brokers, topic, driver memory and the records per micro-batch (with these defaults)."""
    parser.add_argument("--jars", required=True, help="comma-separated: Iceberg runtime, Kafka connector and its dependencies")
    parser.add_argument("--warehouse", required=True, help="local folder for the Hadoop catalog and the checkpoint")
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--driver-memory", default=driver_memory)
    parser.add_argument("--max-offsets-per-trigger", type=int, default=max_offsets_per_trigger, help="0: one micro-batch for everything available")


def local_session(app_name: str, *, jars: str, warehouse: str, driver_memory: str, extensions: bool = False, shuffle_partitions: int | None = None) -> Any:
    """A local[2] session whose catalog `bench` is an Iceberg Hadoop catalog in `warehouse`;
    `extensions` adds Iceberg's SQL extensions (MERGE INTO, row-level DELETE/UPDATE)."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", driver_memory)
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.local.dir", os.path.join(warehouse, "spark-local"))
        .config("spark.jars", jars)
        .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.bench.type", "hadoop")
        .config("spark.sql.catalog.bench.warehouse", "file://" + os.path.abspath(warehouse))
    )
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    if extensions:
        builder = builder.config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def kafka_stream(spark: Any, brokers: str, topic: str, max_offsets_per_trigger: int = 0) -> Any:
    """The topic as a streaming DataFrame (Spark's Kafka source columns) from its earliest offsets;
    `max_offsets_per_trigger` > 0 bounds the records of a micro-batch."""
    reader = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", brokers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("failOnDataLoss", "true")
    )
    if max_offsets_per_trigger > 0:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    return reader.load()


def await_available_now(query: Any, started: float) -> dict[str, Any]:
    """Waits for an available-now streaming query started at `started` (time.perf_counter());
    returns query_seconds, its batches with input, their input_rows, each one's time (batch_ms,
    triggerExecution) and Spark's split of their time (duration_ms: addBatch, latestOffset,
    queryPlanning, walCommit, ...) summed."""
    query.awaitTermination()
    query_seconds = time.perf_counter() - started
    if query.exception() is not None:
        raise RuntimeError(str(query.exception()))
    progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
    durations: dict[str, int] = {}
    for p in progress:
        for key, value in p["durationMs"].items():
            durations[key] = durations.get(key, 0) + int(value)
    return {
        "query_seconds": query_seconds,
        "batches": len(progress),
        "input_rows": sum(int(p["numInputRows"]) for p in progress),
        "batch_ms": [int(p["durationMs"].get("triggerExecution", 0)) for p in progress],
        "duration_ms": durations,
    }
