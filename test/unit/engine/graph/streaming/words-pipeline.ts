/** A streaming pipeline spec named `name` over the `words` Parquet files (data/*.parquet) with the given `tables:` entries. */
export function wordsPipeline(name: string, tables: string): string {
  return `pipeline: ${name}
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
${tables}`;
}
