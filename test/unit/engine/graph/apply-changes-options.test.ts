/** An apply-changes flow's IR as the operator's options, and the input format read from the change rows' columns. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../../src/duckdb/session.js';
import { applyChangesOptions, inferChangeFormat } from '../../../../src/engine/graph/cdc/apply-changes-options.js';
import { parseApplyChangesOptions } from '../../../../src/engine/operators/cdc-options.js';
import type { ApplyChanges } from '../../../../src/pipeline/ir/flow.js';
import { parsePipelineDefinition } from '../../../../src/pipeline/spec-to-ir.js';
import { openSession } from '../engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const BASE: ApplyChanges = { keys: ['id'], sequenceBy: 'seq', ignoreNullUpdates: false, storedAsScdType: 1 };

describe('IR → operator options', () => {
  it('maps every option, include lists to column lists and except lists to except lists', () => {
    const full: ApplyChanges = {
      keys: ['tenant', 'id'],
      sequenceBy: 'lsn',
      changeFormat: { kind: 'row-kind', column: 'kind' },
      applyAsDeletes: "op = 'D'",
      ignoreNullUpdates: true,
      columns: { except: ['op'] },
      storedAsScdType: 2,
      trackHistory: { include: ['city'] },
    };
    expect(parseApplyChangesOptions(applyChangesOptions(full))).toEqual({
      keys: ['tenant', 'id'],
      sequenceBy: 'lsn',
      format: { kind: 'row-kind', column: 'kind' },
      applyAsDeletes: "op = 'D'",
      ignoreNullUpdates: true,
      exceptColumnList: ['op'],
      storedAsScdType: 2,
      trackHistoryColumnList: ['city'],
    });
    const other = applyChangesOptions({ ...BASE, applyAsTruncates: "op = 'T'", columns: { include: ['name'] } });
    expect(other).toEqual({ keys: ['id'], sequenceBy: 'seq', format: { kind: 'rows' }, applyAsTruncates: "op = 'T'", ignoreNullUpdates: false, columnList: ['name'], storedAsScdType: 1 });
    expect(applyChangesOptions({ ...BASE, storedAsScdType: 2, trackHistory: { except: ['noise'] } })).toMatchObject({ trackHistoryExceptColumnList: ['noise'] });
  });
});

describe('change format', () => {
  it('is Debezium when op, before and after are there with an image struct; rows otherwise; a declared one wins', async () => {
    await session.run(`CREATE TABLE envelope (op VARCHAR, before STRUCT(id INTEGER), after STRUCT(id INTEGER), source STRUCT(lsn BIGINT))`);
    await session.run(`CREATE TABLE inserts_only AS SELECT 'c' AS op, NULL AS before, {'id': 1} AS after`);
    await session.run(`CREATE TABLE plain (op VARCHAR, before VARCHAR, after VARCHAR, id INTEGER)`);
    await session.run(`CREATE TABLE no_before (op VARCHAR, after STRUCT(id INTEGER))`);
    expect(await inferChangeFormat(session, BASE, 'envelope')).toEqual({ kind: 'debezium' });
    expect(await inferChangeFormat(session, BASE, 'inserts_only')).toEqual({ kind: 'debezium' });
    expect(await inferChangeFormat(session, BASE, 'plain')).toEqual({ kind: 'rows' });
    expect(await inferChangeFormat(session, BASE, 'no_before')).toEqual({ kind: 'rows' });
    expect(await inferChangeFormat(session, { ...BASE, changeFormat: { kind: 'rows' } }, 'envelope')).toEqual({ kind: 'rows' });
  });

  it('is checked in the YAML: rows, debezium or { row_kind: column }', () => {
    const spec = (format: string): string => `pipeline: p
sources:
  changes: { format: parquet, path: x.parquet }
tables:
  lake.t:
    kind: streaming_table
    sql: SELECT * FROM STREAM(changes)
    apply_changes: { keys: [id], sequence_by: seq, change_format: ${format} }
`;
    for (const ok of ['rows', 'debezium', '{ row_kind: kind }']) expect(parsePipelineDefinition(spec(ok), 'p.yaml').ok).toBe(true);
    const bad = parsePipelineDefinition(spec('avro'), 'p.yaml');
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toContain('change_format must be rows, debezium or { row_kind: <column> }');
  });
});
