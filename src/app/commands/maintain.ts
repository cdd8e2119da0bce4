/**
 * `thund maintain <namespace.table> | --pipeline <file> [tables…]`: runs the maintenance actions
 * named by flags (every one, in registry order, when none is named) on each table, printing one
 * summary line per action per table (`--json`: one JSON object per line). Tables are found as
 * `thund inspect` finds them: the embedded catalog, or the catalog of the pipeline's spec.
 */
import { parseArgs } from 'node:util';
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { DuckDbSession } from '../../duckdb/session.js';
import { InvalidInputError } from '../../errors.js';
import { stringifyJson } from '../../iceberg/json.js';
import type { MaintenanceActionName } from '../../table/maintenance/maintenance-action.js';
import { parseTableName } from '../table-name.js';
import { loadDefinition, openExistingCatalog, pipelineTables } from './existing-table.js';
import { MAINTENANCE_ACTIONS, type MaintenanceFlags } from './maintenance-actions.js';

const ACTION_FLAGS = [...MAINTENANCE_ACTIONS.keys()];

export async function maintainCommand(argv: readonly string[], print: (line: string) => void): Promise<void> {
  const { positionals, values } = parseMaintainArgs(argv);
  const actions = ACTION_FLAGS.filter((name) => values[name] === true);
  const chosen = actions.length === 0 ? ACTION_FLAGS : actions;
  const flags = maintenanceFlags(values, chosen);
  const spec = values.pipeline === undefined ? undefined : await loadDefinition(values.pipeline);
  const tables = tablesOf(positionals, spec === undefined ? undefined : pipelineTables(spec), values.pipeline);
  const overrides = {
    ...(values.warehouse === undefined ? {} : { warehouse: values.warehouse }),
    ...(values['catalog-name'] === undefined ? {} : { catalogName: values['catalog-name'] }),
  };
  const opened = await openExistingCatalog(spec, overrides, tables[0]!, 'maintain');
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    for (const identifier of tables) {
      // Fails with the table's name before any action runs.
      await opened.catalog.loadTable(identifier);
      const target = { catalog: opened.catalog, identifier, io: opened.io, session, dryRun: values['dry-run'] === true };
      for (const name of chosen) {
        const outcome = await MAINTENANCE_ACTIONS.get(name)!(target, flags);
        const table = formatIdentifier(identifier);
        if (values.json === true) {
          print(stringifyJson({ table, ...outcome, snapshotId: outcome.snapshotId ?? null }));
        } else {
          print(`${table}  ${outcome.summary}`);
        }
      }
    }
  } finally {
    session.close();
    await opened.close();
  }
}

function parseMaintainArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...Object.fromEntries(ACTION_FLAGS.map((name) => [name, { type: 'boolean' as const }])),
        'older-than': { type: 'string' },
        'include-older-specs': { type: 'boolean' },
        'retain-last': { type: 'string' },
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        pipeline: { type: 'string' },
        warehouse: { type: 'string' },
        'catalog-name': { type: 'string' },
      },
    }) as { positionals: string[]; values: Record<string, string | boolean | undefined> & MaintainValues };
  } catch (error) {
    throw new InvalidInputError(`thund maintain: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

interface MaintainValues {
  readonly 'older-than'?: string;
  readonly 'include-older-specs'?: boolean;
  readonly 'retain-last'?: string;
  readonly 'dry-run'?: boolean;
  readonly json?: boolean;
  readonly pipeline?: string;
  readonly warehouse?: string;
  readonly 'catalog-name'?: string;
}

function maintenanceFlags(values: MaintainValues, chosen: readonly MaintenanceActionName[]): MaintenanceFlags {
  const olderThan = values['older-than'];
  const retainText = values['retain-last'];
  if (olderThan !== undefined && !chosen.includes('expire-snapshots') && !chosen.includes('remove-orphans')) {
    throw new InvalidInputError('thund maintain: --older-than goes with --expire-snapshots or --remove-orphans');
  }
  if (values['include-older-specs'] === true && !chosen.includes('compact')) {
    throw new InvalidInputError('thund maintain: --include-older-specs goes with --compact');
  }
  if (retainText !== undefined && !chosen.includes('expire-snapshots')) {
    throw new InvalidInputError('thund maintain: --retain-last goes with --expire-snapshots');
  }
  if (retainText !== undefined && !/^[1-9][0-9]*$/.test(retainText)) {
    throw new InvalidInputError(`thund maintain: --retain-last must be a positive number of snapshots (got "${retainText}")`);
  }
  return {
    ...(olderThan === undefined ? {} : { olderThanMs: ageOf(olderThan, Date.now()) }),
    ...(retainText === undefined ? {} : { retainLast: Number(retainText) }),
    ...(values['include-older-specs'] === true ? { includeOlderSpecs: true } : {}),
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --older-than: a duration (`90m`, `12h`, `3d`) or an ISO timestamp in the past, as an age in milliseconds. */
export function ageOf(text: string, now: number): number {
  const duration = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (duration !== null) return Number(duration[1]) * (UNIT_MS[duration[2] as string] as number);
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidInputError(`thund maintain: --older-than must be a duration such as 3d, 12h or 90m, or an ISO timestamp (got "${text}")`);
  if (at > now) throw new InvalidInputError(`thund maintain: --older-than ${text} is in the future`);
  return now - at;
}

/** One named table; with --pipeline the named ones (each one of the pipeline's) or all of them. */
function tablesOf(positionals: readonly string[], pipelineTables: readonly TableIdentifier[] | undefined, pipeline: string | undefined): TableIdentifier[] {
  const named = positionals.map(parseTableName);
  if (pipelineTables === undefined) {
    if (named.length !== 1) {
      throw new InvalidInputError(
        named.length === 0
          ? 'thund maintain needs a table: thund maintain <namespace.table>, or --pipeline <file> [tables…]'
          : `thund maintain takes one table (got ${positionals.join(', ')}); several go with --pipeline <file>`,
      );
    }
    return named;
  }
  const known = new Set(pipelineTables.map(formatIdentifier));
  const unknown = named.filter((identifier) => !known.has(formatIdentifier(identifier)));
  if (unknown.length > 0) {
    throw new InvalidInputError(`thund maintain: ${unknown.map(formatIdentifier).join(', ')} is not a table of pipeline ${pipeline ?? ''}`, {
      context: { pipeline },
    });
  }
  const tables = named.length > 0 ? named : pipelineTables;
  if (tables.length === 0) throw new InvalidInputError(`thund maintain: pipeline ${pipeline ?? ''} writes no table`, { context: { pipeline } });
  return [...tables];
}
