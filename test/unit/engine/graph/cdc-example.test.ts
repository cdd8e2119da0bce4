/**
 * examples/cdc_scd2 through the apply-changes sink: the pipeline.yaml read by the definition
 * reader, its apply-changes flow run over the four Parquet files as four micro-batches (the
 * flow's SQL with STREAM() pointed at each file, as the streaming loop does), and the Iceberg
 * table read back equal to one DuckDB statement over all the events.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { quoteLiteral } from '../../../../src/duckdb/session.js';
import { createApplyChangesSink } from '../../../../src/engine/graph/apply-changes-sink.js';
import { isTableDataset } from '../../../../src/pipeline/ir/dataset.js';
import { loadPipelineDefinition } from '../../../../src/pipeline/definition-file.js';
import { scd2HistoryOf } from '../../../support/scd2-reference.js';
import { rowsOf } from '../engine-test-helpers.js';
import { graphContext, identifierOf, openWarehouse, scanTarget, type Warehouse } from './cdc-sink-fixture.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/cdc_scd2/', import.meta.url));

let warehouse: Warehouse;
beforeEach(async () => {
  warehouse = await openWarehouse();
});
afterEach(async () => {
  await warehouse.close();
});

const FLOOR = scd2HistoryOf(`read_parquet(${quoteLiteral(`${EXAMPLE}data/changes/*.parquet`)})`);

it('lands the Debezium events of the example as the SCD2 history one statement computes, one snapshot per file', async () => {
  const loaded = await loadPipelineDefinition(`${EXAMPLE}pipeline.yaml`);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const { graph } = loaded.definition;
  const flow = graph.flows.find((f) => f.kind === 'apply-changes')!;
  const target = graph.datasets.find((d) => d.name === flow.target);
  if (target === undefined || !isTableDataset(target)) throw new Error('the example has no table target');
  const sink = await createApplyChangesSink(graphContext(warehouse, graph, flow, target));
  const { session } = warehouse;
  for (let file = 0; file < 4; file += 1) {
    const input = `read_parquet(${quoteLiteral(`${EXAMPLE}data/changes/part-${file}.parquet`)})`;
    await session.run(`CREATE OR REPLACE TABLE batch AS ${flow.query.text.replace('STREAM(customer_changes)', input)}`);
    await sink.write('batch', { 'thund.checkpoint.example': String(file) });
  }
  const expected = await rowsOf(session, FLOOR);
  expect(expected.filter((row) => row[5] === null).length).toBeGreaterThan(30);
  expect(await scanTarget(warehouse, 'customers_history', 'id, __START_AT')).toEqual(expected);
  const { metadata } = await warehouse.catalog.loadTable(identifierOf('customers_history'));
  expect(metadata.snapshots).toHaveLength(4);
  expect(metadata.partitionSpecs.find((spec) => spec.specId === metadata.defaultSpecId)?.fields.map((f) => f.transform)).toEqual(['bucket[4]']);
});
