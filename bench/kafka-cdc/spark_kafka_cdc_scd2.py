#!/usr/bin/env python3
"""Spark side of bench/kafka-cdc: Spark Structured Streaming (local[2]) reads a topic of Debezium
JSON change events from its earliest offsets, trigger available-now (at most
--max-offsets-per-trigger records per micro-batch), and applies each micro-batch to an SCD type 2
Iceberg table of a local Hadoop catalog with foreachBatch + one MERGE INTO (merge-on-read):

  - every event of the batch that is not a delete becomes a version [lsn, the key's next lsn in
    the batch), open (NULL end) when it is the key's last event of the batch;
  - the key's current version in the table (NULL end) is closed at the key's first lsn of the batch.

Both go through one MERGE: the "close" rows carry the key as merge key, the new versions a NULL
merge key (so they never match and are inserted). Events of one key arrive in lsn order (they
are keyed, so one partition holds them), which is what the benchmark produces.

After the query the table is exported (untimed) as Parquet to --export for the caller to check.
Prints one JSON line: {"rows", "current_rows", "query_seconds", "session_seconds", "batches",
"input_rows", "duration_ms"}. query_seconds runs from the query's start to its end (JVM start and
session creation excluded); session_seconds is the session creation.
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

ROW = "id BIGINT, name STRING, email STRING, tier STRING, amount DOUBLE, updated_ms BIGINT"
ENVELOPE = f"before STRUCT<{ROW}>, after STRUCT<{ROW}>, source STRUCT<lsn: BIGINT, ts_ms: BIGINT>, op STRING, ts_ms BIGINT"
COLUMNS = ["id", "name", "email", "tier", "amount", "updated_ms"]
TABLE = "bench.cdc.customers_history"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_kafka_arguments(parser, driver_memory="2g", max_offsets_per_trigger=100000)
    parser.add_argument("--export", required=True, help="folder the final table is written to as Parquet")
    args = parser.parse_args(argv)

    from pyspark.sql import Window
    from pyspark.sql import functions as F

    session_started = time.perf_counter()
    spark = local_session("thund-bench-kafka-cdc-spark", jars=args.jars, warehouse=args.warehouse, driver_memory=args.driver_memory, extensions=True, shuffle_partitions=2)
    session_seconds = time.perf_counter() - session_started
    try:
        spark.sql(
            f"CREATE TABLE {TABLE} ({ROW}, __START_AT BIGINT, __END_AT BIGINT) USING iceberg "
            "TBLPROPERTIES ('format-version'='2', 'write.merge.mode'='merge-on-read', "
            "'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
        )
        # Tombstones (null values after a delete) carry no event.
        envelopes = (
            kafka_stream(spark, args.brokers, args.topic, args.max_offsets_per_trigger)
            .where(F.col("value").isNotNull())
            .select(F.from_json(F.col("value").cast("string"), ENVELOPE).alias("e"))
        )

        by_key = Window.partitionBy("id").orderBy("lsn")
        version_columns = ", ".join(f"s.{c}" for c in COLUMNS)
        merge = (
            f"MERGE INTO {TABLE} t USING staged s ON t.id = s.merge_key AND t.__END_AT IS NULL "
            "WHEN MATCHED THEN UPDATE SET t.__END_AT = s.close_at "
            f"WHEN NOT MATCHED AND s.merge_key IS NULL THEN INSERT ({', '.join(COLUMNS)}, __START_AT, __END_AT) "
            f"VALUES ({version_columns}, s.__START_AT, s.__END_AT)"
        )

        def apply_batch(batch, batch_id: int) -> None:
            # One row per event: the row image (before for a delete), its lsn and op; read from Kafka once.
            events = batch.select(
                F.col("e.op").alias("op"),
                F.col("e.source.lsn").alias("lsn"),
                F.when(F.col("e.op") == "d", F.col("e.before")).otherwise(F.col("e.after")).alias("image"),
            ).select("op", "lsn", *[F.col(f"image.{c}").alias(c) for c in COLUMNS])
            events = events.withColumn("next_lsn", F.lead("lsn").over(by_key)).withColumn("first", F.row_number().over(by_key) == 1).persist()
            try:
                closes = events.where("first").select(
                    F.col("id").alias("merge_key"), F.col("lsn").alias("close_at"),
                    *[F.lit(None).cast(t).alias(c) for c, t in zip(COLUMNS, ["bigint", "string", "string", "string", "double", "bigint"])],
                    F.lit(None).cast("bigint").alias("__START_AT"), F.lit(None).cast("bigint").alias("__END_AT"),
                )
                versions = events.where(F.col("op") != "d").select(
                    F.lit(None).cast("bigint").alias("merge_key"), F.lit(None).cast("bigint").alias("close_at"),
                    *COLUMNS, F.col("lsn").alias("__START_AT"), F.col("next_lsn").alias("__END_AT"),
                )
                closes.unionByName(versions).createOrReplaceTempView("staged")
                batch.sparkSession.sql(merge)
            finally:
                events.unpersist()

        started = time.perf_counter()
        query = (
            envelopes.writeStream.foreachBatch(apply_batch)
            .trigger(availableNow=True)
            .option("checkpointLocation", os.path.join(args.warehouse, "checkpoint"))
            .start()
        )
        finished = await_available_now(query, started)
        # The micro-batches commit through the stream's own (cloned) session: this session's
        # catalog caches the table as created (empty) for up to 30 s.
        spark.sql(f"REFRESH TABLE {TABLE}")
        counted = spark.sql(f"SELECT count(*) AS n, count_if(__END_AT IS NULL) AS c FROM {TABLE}").collect()[0]
        spark.table(TABLE).write.parquet(args.export)
        finished.update(rows=int(counted["n"]), current_rows=int(counted["c"]), session_seconds=session_seconds)
        print(json.dumps(finished))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
