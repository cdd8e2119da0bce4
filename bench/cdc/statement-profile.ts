/**
 * bench/cdc --profile: wall and CPU time of every SQL statement a session runs, summed per
 * statement shape (its text with whitespace collapsed and numbers masked), per phase.
 */
import type { DuckDbSession } from '../../src/duckdb/session.js';

interface Cost {
  calls: number;
  wall: number;
  cpu: number;
}

export class StatementProfile {
  private phase = '';
  private readonly costs = new Map<string, Map<string, Cost>>();

  constructor(session: DuckDbSession) {
    for (const method of ['run', 'queryJson', 'queryBigInts'] as const) {
      const original = session[method].bind(session) as (sql: string) => Promise<unknown>;
      (session as unknown as Record<string, unknown>)[method] = async (sql: string): Promise<unknown> => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        try {
          return await original(sql);
        } finally {
          const used = process.cpuUsage(cpu);
          this.add(sql, (performance.now() - started) / 1000, (used.user + used.system) / 1e6);
        }
      };
    }
  }

  start(phase: string): void {
    this.phase = phase;
  }

  private add(sql: string, wall: number, cpu: number): void {
    if (this.phase === '') return;
    const shape = sql
      .replace(/\s+/g, ' ')
      .replace(/'[^']*'/g, "'…'")
      .replace(/\b(?=\w*\d)\w{10,}\b/g, 'ID')
      .replace(/\d+/g, 'N')
      .slice(0, 150);
    const phase = this.costs.get(this.phase) ?? new Map<string, Cost>();
    this.costs.set(this.phase, phase);
    const cost = phase.get(shape) ?? { calls: 0, wall: 0, cpu: 0 };
    phase.set(shape, { calls: cost.calls + 1, wall: cost.wall + wall, cpu: cost.cpu + cpu });
  }

  report(top = Number(process.env['PROFILE_TOP'] ?? 20)): string {
    const lines: string[] = [];
    for (const [phase, costs] of this.costs) {
      const sorted = [...costs.entries()].sort((a, b) => b[1].cpu - a[1].cpu);
      const total = sorted.reduce((sum, [, c]) => ({ wall: sum.wall + c.wall, cpu: sum.cpu + c.cpu, calls: sum.calls + c.calls }), { wall: 0, cpu: 0, calls: 0 });
      lines.push(`${phase}: SQL ${total.wall.toFixed(2)} s, ${total.cpu.toFixed(2)} CPU s, ${total.calls} statements`);
      for (const [shape, c] of sorted.slice(0, top)) lines.push(`  ${c.cpu.toFixed(2).padStart(6)} CPU s ${c.wall.toFixed(2).padStart(6)} s ×${String(c.calls).padEnd(3)} ${shape}`);
    }
    return lines.join('\n');
  }
}
