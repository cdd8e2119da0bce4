/** The lexical rewrites of flow SQL: catalog qualification, watermark placement, time_bucket. */
import { describe, expect, it } from 'vitest';
import { toSparkDialect, windowOutsideGroupBy } from '../../../src/sdp/spark-dialect.js';
import { streamReadCount, withWatermarkClause } from '../../../src/sdp/stream-reads.js';
import { qualifyTableReads } from '../../../src/sdp/table-references.js';

const WATERMARK = { column: 'ts', delay: { text: '5 seconds', micros: 5_000_000n } };

describe('qualifyTableReads', () => {
  it('qualifies two-part reads outside literals, comments and longer names', () => {
    const sql = "SELECT a.x, 'lake.orders' FROM lake.orders a JOIN LAKE . Orders b ON 1=1 JOIN lake.orders_2 c ON 1=1 /* lake.orders */";
    expect(qualifyTableReads(sql, [{ name: 'lake.orders', streaming: false }, { name: 'lake.orders_2', streaming: false }], 'cat')).toBe(
      "SELECT a.x, 'lake.orders' FROM `cat`.`lake`.`orders` a JOIN `cat`.`lake`.`orders` b ON 1=1 JOIN `cat`.`lake`.`orders_2` c ON 1=1 /* lake.orders */",
    );
  });

  it('leaves single-part names (sources, views) alone', () => {
    expect(qualifyTableReads('SELECT * FROM orders', [{ name: 'orders', streaming: false }], 'cat')).toBe('SELECT * FROM orders');
  });
});

describe('watermark clause', () => {
  it('goes right after the only STREAM() read', () => {
    expect(withWatermarkClause('SELECT * FROM STREAM(events) e GROUP BY x', WATERMARK)).toBe('SELECT * FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 5 SECONDS e GROUP BY x');
  });

  it('has no place with two streaming reads, or a STREAM( inside a literal only', () => {
    expect(withWatermarkClause('SELECT * FROM STREAM(a) JOIN STREAM(b) USING (k)', WATERMARK)).toBeUndefined();
    expect(streamReadCount("SELECT 'STREAM(a)' FROM STREAM(b)")).toBe(1);
  });
});

describe('toSparkDialect', () => {
  it("rewrites time_bucket(INTERVAL 'w', col): window(col, 'w') in GROUP BY (its watermark), .start elsewhere", () => {
    const result = toSparkDialect(
      "SELECT time_bucket(INTERVAL '10 minutes', ts) AS w, 'time_bucket(INTERVAL ''1 day'', ts)' FROM STREAM(e) GROUP BY time_bucket(INTERVAL '10 minutes', ts), k -- select",
    );
    expect(result.sql).toBe(
      "SELECT window(ts, '10 minutes').start AS w, 'time_bucket(INTERVAL ''1 day'', ts)' FROM STREAM(e) GROUP BY window(ts, '10 minutes'), k -- select",
    );
    expect(result.rewrites).toEqual(["time_bucket(INTERVAL '10 minutes', ts) → window(ts, '10 minutes').start", "time_bucket(INTERVAL '10 minutes', ts) → window(ts, '10 minutes')"]);
  });

  it('tells a window grouped only through GROUP BY ALL or a position from one grouped by its time_bucket', () => {
    const select = "SELECT time_bucket(INTERVAL '1 minute', ts) AS w, k, count(*) FROM STREAM(e)";
    expect(windowOutsideGroupBy(`${select} GROUP BY ALL`)).toBe(true);
    expect(windowOutsideGroupBy(`${select} GROUP BY 1, 2`)).toBe(true);
    expect(windowOutsideGroupBy(`${select} GROUP BY time_bucket(INTERVAL '1 minute', ts), k`)).toBe(false);
    expect(windowOutsideGroupBy("SELECT k, count(*) FROM STREAM(e) GROUP BY ALL -- time_bucket(INTERVAL '1 minute', ts)")).toBe(false);
  });
});
