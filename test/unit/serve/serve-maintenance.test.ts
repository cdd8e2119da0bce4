/**
 * serve's maintenance between triggers: the policy read from table properties (defaults, -1 turns
 * an action off, bad values refused by name), one action per call and the most overdue first,
 * nothing before an interval has passed since the service started, a failing action logged and
 * counted and not retried before its interval, a table that is off or not there skipped. Runs the
 * real compaction on an embedded warehouse; the clock is the test's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MaintenanceAction } from '../../../src/app/commands/maintenance-actions.js';
import { MAINTENANCE_ACTIONS } from '../../../src/app/commands/maintenance-actions.js';
import type { Logger } from '../../../src/app/serve/json-logger.js';
import { DEFAULT_INTERVALS_MS, maintenancePolicy } from '../../../src/app/serve/maintenance-policy.js';
import { PipelineMetrics, type MetricsReport } from '../../../src/app/serve/pipeline-metrics.js';
import { ServeMaintenance, type MaintenanceRun } from '../../../src/app/serve/serve-maintenance.js';
import { ThundError } from '../../../src/errors.js';
import type { MaintenanceActionName } from '../../../src/table/maintenance/maintenance-action.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';
import { appendMany, createEvents, ID, liveFiles, scanRows } from '../table/maintenance/maintenance-table.js';

describe('maintenance policy', () => {
  it('takes the defaults, the table’s intervals, -1 to turn an action off, and refuses bad values by name', () => {
    expect(maintenancePolicy({}, 'db.t')).toEqual({ enabled: true, intervalsMs: DEFAULT_INTERVALS_MS });
    const tuned = maintenancePolicy({ 'thund.maintenance.compact.interval-ms': '5000', 'thund.maintenance.remove-orphans.interval-ms': '-1' }, 'db.t');
    expect(tuned.intervalsMs.get('compact')).toBe(5000);
    expect(tuned.intervalsMs.has('remove-orphans')).toBe(false);
    expect(maintenancePolicy({ 'thund.maintenance.enabled': 'false' }, 'db.t').enabled).toBe(false);
    expect(() => maintenancePolicy({ 'thund.maintenance.expire-snapshots.interval-ms': '1h' }, 'db.t')).toThrow(
      'table db.t: property thund.maintenance.expire-snapshots.interval-ms must be a whole number of milliseconds (-1 turns the action off), got "1h"',
    );
    expect(() => maintenancePolicy({ 'thund.maintenance.enabled': 'yes' }, 'db.t')).toThrow('thund.maintenance.enabled must be true or false');
  });
});

/** Metrics of maintenance alone: no flow, no trigger, no source. */
const NOTHING_SERVED: MetricsReport = { ready: true, triggers: { total: 0, failed: 0, last: null }, flows: [], sources: [] };

describe('serve maintenance', () => {
  let warehouse: LocalWarehouse;
  let clock: number;
  const logs: Array<{ level: string; msg: string; fields: Record<string, unknown> | undefined }> = [];
  const logger: Logger = { log: (level, msg, fields) => logs.push({ level, msg, fields: fields === undefined ? undefined : { ...fields } }) };
  const runs: MaintenanceRun[] = [];
  const metrics = new PipelineMetrics();

  beforeEach(async () => {
    warehouse = await openLocalWarehouse({ prefix: 'serve-maintenance', namespaces: [['db']] });
    clock = 1_000_000;
    logs.length = 0;
    runs.length = 0;
  });
  afterEach(() => warehouse.close());

  const maintenance = (actions: ReadonlyMap<MaintenanceActionName, MaintenanceAction>, tables = [ID, { namespace: ['db'], name: 'not_yet' }]): ServeMaintenance =>
    new ServeMaintenance({
      catalog: warehouse.catalog,
      io: warehouse.io,
      tables,
      actions,
      logger,
      onRun: (run) => {
        runs.push(run);
        metrics.maintenanceRun(run);
      },
      now: () => clock,
    });

  it('runs nothing before an interval has passed, then the most overdue action, one per call, and compacts for real', async () => {
    await createEvents(warehouse, { properties: { 'thund.maintenance.compact.interval-ms': '1000', 'thund.maintenance.expire-snapshots.interval-ms': '3000' } });
    await appendMany(warehouse, 6, 10);
    const before = await scanRows(warehouse);
    const service = maintenance(MAINTENANCE_ACTIONS);
    expect(await service.runDue()).toBeUndefined();
    clock += 5_000;
    // Both are due; compaction has waited longer past its interval.
    expect((await service.runDue())?.action).toBe('compact');
    expect((await liveFiles(warehouse)).data).toHaveLength(1);
    expect(await scanRows(warehouse)).toEqual(before);
    expect((await service.runDue())?.action).toBe('expire-snapshots');
    expect(await service.runDue()).toBeUndefined();
    expect(logs.filter((l) => l.msg === 'maintenance').map((l) => l.fields?.['action'])).toEqual(['compact', 'expire-snapshots']);
    expect(metrics.render(NOTHING_SERVED)).toMatch(/^thund_maintenance_runs_total\{table="db\.events",action="compact",outcome="ok"\} 1$/m);
    expect(metrics.render(NOTHING_SERVED)).toMatch(/^thund_maintenance_items_total\{table="db\.events",action="compact",item="dataFilesIn"\} 6$/m);
  });

  it('logs and counts a failing action, tries it again only after its interval, and skips a table that is off', async () => {
    await createEvents(warehouse, { properties: { 'thund.maintenance.compact.interval-ms': '1000' } });
    let calls = 0;
    const failing: MaintenanceAction = () => {
      calls += 1;
      return Promise.reject(new ThundError('COMPACTION_CONFLICT', 'a concurrent delete touched a rewritten file', { retryable: true }));
    };
    const service = maintenance(new Map([['compact', failing]]));
    clock += 1_000;
    expect((await service.runDue())?.error?.code).toBe('COMPACTION_CONFLICT');
    expect(await service.runDue()).toBeUndefined();
    clock += 1_000;
    await service.runDue();
    expect(calls).toBe(2);
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.fields?.['code'])).toEqual(['COMPACTION_CONFLICT', 'COMPACTION_CONFLICT']);

    await warehouse.catalog.commitTable(ID, [], [{ action: 'set-properties', updates: { 'thund.maintenance.enabled': 'false' } }]);
    clock += 10_000;
    expect(await service.runDue()).toBeUndefined();
    expect(calls).toBe(2);
  });
});
