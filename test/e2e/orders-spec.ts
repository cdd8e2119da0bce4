/**
 * A one-flow pipeline over the quickstart's orders (see ordersWorkdir): one table, one flow
 * `load` writing it with `sql`, written as `<folder>/<name>.yaml`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function ordersSpec(folder: string, name: string, table: string, settings: string, sql: string): string {
  const file = join(folder, `${name}.yaml`);
  writeFileSync(
    file,
    `pipeline: ${name}
sources:
  orders: {format: parquet, path: data/orders.parquet}
tables:
  ${table}: ${settings}
flows:
  load:
    target: ${table}
    sql: ${sql}
`,
  );
  return file;
}
