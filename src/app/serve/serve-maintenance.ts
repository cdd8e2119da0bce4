/**
 * `thund serve` keeps its pipeline's tables healthy itself: between two triggers it runs at most
 * one maintenance action, the most overdue of every table's policy (maintenance-policy.ts), so
 * ingest is never held back by more than one maintenance commit. Each action is logged and
 * counted (/metrics). An action that fails (a concurrent commit touched what compaction rewrote,
 * a catalog hiccup) is logged and tried again at its next interval; it never stops the service.
 * The actions are the ones `thund maintain` runs, with the same crash safety: one atomic commit
 * each, and files deleted only after the commit that unreferences them is known to have landed.
 */
import type { Catalog, TableIdentifier } from '../../../catalog/catalog.js';
import { formatIdentifier } from '../../../catalog/catalog.js';
import { DuckDbSession, type DuckDbSettings } from '../../duckdb/session.js';
import { ThundError } from '../../errors.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import type { MaintenanceActionName, MaintenanceOutcome } from '../../table/maintenance/maintenance-action.js';
import type { MaintenanceAction } from '../commands/maintenance-actions.js';
import type { Logger } from './json-logger.js';
import { maintenancePolicy, type MaintenancePolicy } from './maintenance-policy.js';

export interface MaintenanceRun {
  readonly table: string;
  readonly action: MaintenanceActionName;
  readonly outcome?: MaintenanceOutcome;
  readonly error?: ThundError;
}

export interface ServeMaintenanceOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly tables: readonly TableIdentifier[];
  readonly actions: ReadonlyMap<MaintenanceActionName, MaintenanceAction>;
  readonly logger: Logger;
  readonly onRun: (run: MaintenanceRun) => void;
  /** Each table's metadata as loaded to find what is due (every call of runDue). */
  readonly onTableLoaded?: (table: string, metadata: TableMetadata) => void;
  readonly duckdb?: DuckDbSettings;
  readonly now?: () => number;
}

export class ServeMaintenance {
  /** When each table's action last ran (ms). */
  private readonly lastRun = new Map<string, number>();
  private readonly now: () => number;
  /** An action first runs one interval after the service started, not at once: a restart does not set off every action. */
  private readonly startedAt: number;

  constructor(private readonly options: ServeMaintenanceOptions) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Runs the most overdue action, if any is due; returns what ran. */
  async runDue(): Promise<MaintenanceRun | undefined> {
    const due = await this.mostOverdue();
    if (due === undefined) return undefined;
    const { identifier, action } = due;
    const table = formatIdentifier(identifier);
    this.lastRun.set(runKey(identifier, action), this.now());
    const run = await this.runOne(identifier, action);
    this.options.onRun(run);
    if (run.error !== undefined) {
      this.options.logger.log('warn', 'maintenance failed; tried again at its next interval', { table, action, code: run.error.code, error: run.error.message });
    } else if (run.outcome !== undefined) {
      this.options.logger.log('info', 'maintenance', { table, action, summary: run.outcome.summary, ...(run.outcome.snapshotId === undefined ? {} : { snapshotId: String(run.outcome.snapshotId) }) });
    }
    return run;
  }

  private async mostOverdue(): Promise<{ identifier: TableIdentifier; action: MaintenanceActionName } | undefined> {
    let best: { identifier: TableIdentifier; action: MaintenanceActionName; dueAt: number } | undefined;
    const now = this.now();
    for (const identifier of this.options.tables) {
      let properties: Readonly<Record<string, string>>;
      try {
        const { metadata } = await this.options.catalog.loadTable(identifier);
        this.options.onTableLoaded?.(formatIdentifier(identifier), metadata);
        properties = metadata.properties;
      } catch {
        // A table the pipeline has not created yet (or a catalog hiccup): nothing to maintain now.
        continue;
      }
      let policy: MaintenancePolicy;
      try {
        policy = maintenancePolicy(properties, formatIdentifier(identifier));
      } catch (error) {
        this.warnOnce(formatIdentifier(identifier), error instanceof Error ? error.message : String(error));
        continue;
      }
      if (!policy.enabled) continue;
      for (const [action, intervalMs] of policy.intervalsMs) {
        if (!this.options.actions.has(action)) continue;
        const dueAt = (this.lastRun.get(runKey(identifier, action)) ?? this.startedAt) + intervalMs;
        if (dueAt <= now && (best === undefined || dueAt < best.dueAt)) best = { identifier, action, dueAt };
      }
    }
    return best;
  }

  private readonly warned = new Set<string>();

  /** A table whose maintenance properties are wrong is not maintained; said once, not every trigger. */
  private warnOnce(table: string, message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.options.logger.log('warn', 'table not maintained: its maintenance properties are wrong', { table, error: message });
  }

  private async runOne(identifier: TableIdentifier, action: MaintenanceActionName): Promise<MaintenanceRun> {
    const table = formatIdentifier(identifier);
    const session = await DuckDbSession.open(this.options.duckdb ?? { threads: 1 });
    try {
      const io = this.options.catalog.tableIO?.(identifier) ?? this.options.io;
      const run = this.options.actions.get(action) as MaintenanceAction;
      const outcome = await run({ catalog: this.options.catalog, identifier, io, session, dryRun: false, now: this.now }, {});
      return { table, action, outcome };
    } catch (error) {
      const typed = error instanceof ThundError ? error : new ThundError('INTERNAL', error instanceof Error ? error.message : String(error), { retryable: true });
      return { table, action, error: typed };
    } finally {
      session.close();
    }
  }
}

const runKey = (identifier: TableIdentifier, action: MaintenanceActionName): string => `${formatIdentifier(identifier)}\u0000${action}`;
