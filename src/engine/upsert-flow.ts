/**
 * A flow in `mode: upsert` into an existing table: its rows replace the live rows with the same
 * key and the others are added, in one snapshot (src/table/upsert.ts: position deletes or file
 * rewrites per `write.update.mode`). The first run, which creates the table, is a plain append.
 */
import { formatIdentifier, type LoadedTable } from '../../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import { snapshotForRef } from '../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH } from '../iceberg/table-metadata.js';
import { upsert } from '../table/upsert.js';
import type { FlowRunRequest, FlowRunResult } from './run-flow.js';

export async function upsertFlow(request: FlowRunRequest, table: LoadedTable): Promise<FlowRunResult> {
  const keys = request.keys;
  if (keys === undefined || keys.length === 0) {
    throw new InvalidInputError(`Flow "${request.flowName}": an upsert into ${formatIdentifier(request.target)} needs key columns`, {
      context: { flow: request.flowName, table: formatIdentifier(request.target) },
    });
  }
  const result = await upsert(
    { catalog: request.catalog, identifier: request.target, io: table.io, session: request.session, summaryProperties: request.summaryProperties },
    { keyColumns: keys, sourceQuery: request.sql },
  );
  const after = await request.catalog.loadTable(request.target);
  // No source rows: nothing was committed; report the table as it is.
  const snapshot = result.snapshot ?? snapshotForRef(after.metadata, MAIN_BRANCH);
  if (snapshot === undefined) {
    throw new InvalidInputError(`Flow "${request.flowName}": ${formatIdentifier(request.target)} has no snapshot after the upsert`, {
      context: { flow: request.flowName, table: formatIdentifier(request.target) },
    });
  }
  return {
    table: after,
    snapshot,
    attempts: result.attempts,
    flowName: request.flowName,
    created: false,
    dataFiles: result.addedDataFiles,
    schemaChanges: [],
    absentColumns: [],
  };
}
