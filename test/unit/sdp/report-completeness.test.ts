/**
 * examples/sdp uses every construct: its report names every dataset, flow and expectation of the
 * graph exactly once, uses all three statuses, and what it calls MAPPED is in a generated file
 * while nothing RUN BY NATIVE or REFUSED is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { formatReportJson, formatReportText } from '../../../src/sdp/lowering-report.js';
import { lowerYaml, type Lowered } from './lower-helpers.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/sdp/pipeline.yaml');

let session: DuckDbSession;
let lowered: Lowered;
beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  lowered = await lowerYaml(session, readFileSync(EXAMPLE, 'utf8'), '4.1', EXAMPLE);
});
afterAll(() => session.close());

describe('the lowering report of examples/sdp', () => {
  it('lists every element of the graph exactly once', () => {
    const expected = [
      ...lowered.graph.datasets.map((dataset) => `dataset ${dataset.name}`),
      ...lowered.graph.datasets.flatMap((dataset) =>
        dataset.kind === 'source' || dataset.kind === 'sink' ? [] : dataset.expectations.map((expectation) => `expectation ${dataset.name}.${expectation.name}`),
      ),
      ...lowered.graph.flows.map((flow) => `flow ${flow.name}`),
    ].sort();
    expect(lowered.report.entries.map((entry) => `${entry.element} ${entry.name}`).sort()).toEqual(expected);
    expect(new Set(lowered.report.entries.map((entry) => entry.status))).toEqual(new Set(['MAPPED', 'RUN BY NATIVE', 'REFUSED']));
  });

  it('gives a reason for everything not mapped and a construct and file for everything mapped', () => {
    for (const entry of lowered.report.entries) {
      if (entry.status === 'MAPPED') {
        expect(entry.construct, entry.name).toBeTruthy();
        expect(lowered.files.map((file) => file.path), entry.name).toContain(entry.file);
      } else {
        expect(entry.reason, entry.name).toBeTruthy();
        expect(entry.file, entry.name).toBeUndefined();
      }
    }
  });

  it('names every RUN BY NATIVE construct the brief lists: expectations, SCD2, update/complete, once, AUTO CDC on 4.1', () => {
    const native = lowered.report.entries.filter((entry) => entry.status === 'RUN BY NATIVE').map((entry) => `${entry.name}: ${entry.reason ?? ''}`);
    for (const pattern of [/expectations/, /SCD type 2/, /output mode update/, /output mode complete/, /once flow/, /AUTO CDC needs Spark 4.2/, /partition transform day\(ordered_at\)/, /Kafka value format avro/]) {
      expect(native.some((line) => pattern.test(line)), String(pattern)).toBe(true);
    }
  });

  it('emits no definition for a native or refused flow, and one for every mapped flow and table', () => {
    const sql = lowered.files.filter((file) => file.path.endsWith('.sql')).map((file) => file.text).join('\n');
    for (const flow of lowered.graph.flows) {
      const status = lowered.entry('flow', flow.name).status;
      const named = sql.includes(`CREATE FLOW \`${flow.name}\``) || lowered.allText.includes(`@dp.append_flow(target="${flow.target}", name="${flow.name}")`);
      if (!flow.implicit) expect(named, flow.name).toBe(status === 'MAPPED');
    }
    for (const entry of lowered.report.entries.filter((e) => e.element === 'dataset' && e.kind === 'materialized-view')) {
      const [namespace, table] = entry.name.split('.');
      expect(sql.includes(`\`${namespace ?? ''}\`.\`${table ?? ''}\``), entry.name).toBe(entry.status === 'MAPPED' || readersOf(entry.name));
    }
  });

  it('the text form has one line per entry plus a summary; the JSON form round-trips with counts', () => {
    const text = formatReportText(lowered.report);
    for (const entry of lowered.report.entries) expect(text).toContain(`${entry.element} ${entry.kind} ${entry.name}`);
    const json = JSON.parse(formatReportJson(lowered.report)) as { entries: unknown[]; summary: Record<string, number> };
    expect(json.entries).toHaveLength(lowered.report.entries.length);
    const count = (status: string) => lowered.report.entries.filter((entry) => entry.status === status).length;
    expect(json.summary).toEqual({ MAPPED: count('MAPPED'), 'RUN BY NATIVE': count('RUN BY NATIVE'), REFUSED: count('REFUSED') });
    expect(text).toContain(`summary: ${count('MAPPED')} mapped, ${count('RUN BY NATIVE')} run by native, ${count('REFUSED')} refused`);
  });
});

/** A native table may still appear in SQL when a mapped flow reads it from the catalog. */
function readersOf(table: string): boolean {
  return lowered.graph.flows.some(
    (flow) => lowered.entry('flow', flow.name).status === 'MAPPED' && (flow.dependencies?.reads ?? []).some((read) => read.name.toLowerCase() === table.toLowerCase()),
  );
}
