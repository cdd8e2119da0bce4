/**
 * What DuckDB's parser said about SQL texts, kept on disk so `thund validate` and a `thund run`
 * whose flows did not change answer without starting DuckDB. Entries live under
 * `<directory>/duckdb-<version>/`, one file per text named by its SHA-256 and holding the text
 * itself (a hit must be the same text, not only the same hash), so another DuckDB release never
 * reads them. A file that is missing, unreadable or not what this module writes is a miss; a
 * write that fails leaves the cache as it was. The cache only saves time: it is never an error.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

/** The parser's answers for one SQL text. */
export interface ParsedSql {
  /** Undefined when the text does not parse as statements. */
  readonly statementCount: number | undefined;
  /** `json_serialize_sql`'s tree, parsed. */
  readonly tree: unknown;
}

const ParsedSqlEntry = z.object({ sql: z.string(), statementCount: z.number().int().nonnegative().nullable(), tree: z.unknown() });
const AggregatesEntry = z.object({ aggregateFunctions: z.array(z.string()) });

const AGGREGATES_FILE = 'aggregate-functions.json';

export class SqlParseCache {
  private readonly directory: string;

  /** `root`: the user's cache folder for this (e.g. ~/.cache/thund/sql-parse). */
  constructor(root: string, duckDbVersion: string = installedDuckDbVersion()) {
    this.directory = path.join(root, `duckdb-${duckDbVersion}`);
  }

  parsed(sql: string): ParsedSql | undefined {
    const entry = this.read(entryFile(sql), ParsedSqlEntry);
    if (entry === undefined || entry.sql !== sql) return undefined;
    return { statementCount: entry.statementCount ?? undefined, tree: entry.tree };
  }

  storeParsed(sql: string, parsed: ParsedSql): void {
    this.write(entryFile(sql), { sql, statementCount: parsed.statementCount ?? null, tree: parsed.tree });
  }

  aggregateFunctions(): ReadonlySet<string> | undefined {
    const entry = this.read(AGGREGATES_FILE, AggregatesEntry);
    return entry === undefined ? undefined : new Set(entry.aggregateFunctions);
  }

  storeAggregateFunctions(names: ReadonlySet<string>): void {
    this.write(AGGREGATES_FILE, { aggregateFunctions: [...names].sort() });
  }

  private read<T>(file: string, schema: z.ZodType<T>): T | undefined {
    let text: string;
    try {
      text = readFileSync(path.join(this.directory, file), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const checked = schema.safeParse(JSON.parse(text));
      return checked.success ? checked.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Written to a file of its own, then renamed: a reader sees a whole entry or none. */
  private write(file: string, value: unknown): void {
    const target = path.join(this.directory, file);
    const partial = `${target}.${randomUUID()}.partial`;
    try {
      mkdirSync(this.directory, { recursive: true });
      writeFileSync(partial, JSON.stringify(value));
      renameSync(partial, target);
    } catch {
      // Not even a partial file may be there (the folder could not be made): nothing to tidy then.
      try {
        rmSync(partial, { force: true });
      } catch {}
    }
  }
}

function entryFile(sql: string): string {
  return `${createHash('sha256').update(sql).digest('hex')}.json`;
}

/** The @duckdb/node-api release installed (each pins one DuckDB library), read without loading DuckDB. */
function installedDuckDbVersion(): string {
  const manifest = createRequire(import.meta.url).resolve('@duckdb/node-api/package.json');
  return z.object({ version: z.string() }).parse(JSON.parse(readFileSync(manifest, 'utf8'))).version;
}
