/**
 * A table's sort order (spec §1.5) as the ORDER BY list of a DuckDB query over its columns:
 * each field's transform of its source column, with its direction and null order. The same
 * transform SQL as partition keys (transforms/duckdb-sql.ts), so `bucket[16](id)` sorts by bucket.
 */
import { IcebergFormatError } from '../../errors.js';
import { quoteIdentifier } from '../../iceberg/duckdb-types.js';
import { findField } from '../../iceberg/schema.js';
import type { SortOrder } from '../../iceberg/table-metadata.js';
import { transformSql } from '../../iceberg/transforms/duckdb-sql.js';
import { parseTransform } from '../../iceberg/transforms/transform.js';
import type { Schema } from '../../iceberg/types.js';

/** `undefined` for an unsorted order; `alias` prefixes the column paths (e.g. `r`). */
export function sortClause(order: SortOrder, schema: Schema, alias: string): string | undefined {
  if (order.fields.length === 0) return undefined;
  return order.fields
    .map((field) => {
      const found = findField(schema, field.sourceId);
      if (found === undefined || found.inRepeated) {
        throw new IcebergFormatError(`Sort order ${order.orderId} sorts by field id ${field.sourceId}, which is not a column of the table schema`, {
          context: { sortOrderId: order.orderId, sourceId: field.sourceId },
        });
      }
      const column = [alias, ...found.path].map((part, i) => (i === 0 ? part : quoteIdentifier(part))).join('.');
      const site = { partitionField: `sort order ${order.orderId}`, sourceColumn: found.path.join('.') };
      const sql = transformSql(parseTransform(field.transform), column, found.field.type, site);
      return `${sql} ${field.direction === 'asc' ? 'ASC' : 'DESC'} ${field.nullOrder === 'nulls-first' ? 'NULLS FIRST' : 'NULLS LAST'}`;
    })
    .join(', ');
}
