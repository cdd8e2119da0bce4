"""The pyiceberg side of bench/commit: N small appends (table.append of a pyarrow table) to a
new table through a REST catalog with files in S3/MinIO, timed in-process, so interpreter and
import start-up are not counted. Prints one JSON line: {"commits", "rows", "seconds", ...}.

    pyiceberg_appends.py --uri URI --namespace NS --table NAME --commits N --rows R
S3 settings come from the environment (THUND_TEST_S3_ENDPOINT, _REGION, _ACCESS_KEY, _SECRET_KEY),
never from the command line.
"""
import argparse
import json
import os
import sys
import time

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--commits", type=int, required=True)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--first-id", type=int, default=0)
    args = parser.parse_args()

    missing = [name for name in ("THUND_TEST_S3_ENDPOINT", "THUND_TEST_S3_REGION", "THUND_TEST_S3_ACCESS_KEY", "THUND_TEST_S3_SECRET_KEY") if not os.environ.get(name)]
    if missing:
        sys.exit(f"pyiceberg_appends.py: {', '.join(missing)} not set")
    catalog = RestCatalog(
        "bench",
        uri=args.uri,
        **{
            "s3.endpoint": os.environ["THUND_TEST_S3_ENDPOINT"],
            "s3.region": os.environ["THUND_TEST_S3_REGION"],
            "s3.access-key-id": os.environ["THUND_TEST_S3_ACCESS_KEY"],
            "s3.secret-access-key": os.environ["THUND_TEST_S3_SECRET_KEY"],
        },
    )
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("note", pa.string())])
    identifier = (args.namespace, args.table)
    table = catalog.create_table(identifier, schema=schema)

    def batch(first: int) -> pa.Table:
        ids = list(range(first, first + args.rows))
        return pa.table({"id": pa.array(ids, pa.int64()), "note": pa.array([f"row {i}" for i in ids])}, schema=schema)

    # One untimed append, as the Thund side does: connections and code paths are warm for both.
    table.append(batch(args.first_id))
    started = time.perf_counter()
    for commit in range(args.commits):
        table.append(batch(args.first_id + (commit + 1) * args.rows))
    seconds = time.perf_counter() - started

    reloaded = catalog.load_table(identifier)
    summary = reloaded.current_snapshot().summary
    print(
        json.dumps(
            {
                "commits": args.commits,
                "rows": args.rows,
                "seconds": seconds,
                "snapshots": len(reloaded.metadata.snapshots),
                "total_records": int(summary["total-records"]),
            }
        )
    )


if __name__ == "__main__":
    main()
