/**
 * `thund inspect <namespace.table>`: snapshots, current summary, live data files, row count, from
 * the embedded catalog or, with `--pipeline FILE`, from the catalog that pipeline's spec names.
 */
import { relative } from 'node:path';
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { fromFileUri, isLocalLocation } from '../../../connectors/storage/local-file-io.js';
import { InvalidInputError } from '../../errors.js';
import { stringifyJson } from '../../iceberg/json.js';
import { liveDataFiles } from '../../table/scan.js';
import { liveRowCountOf } from '../../table/live-row-count.js';
import type { PipelineDefinition } from '../../pipeline/spec-to-ir.js';
import type { CatalogOverrides } from '../open-catalog.js';
import { parseTableName } from '../table-name.js';
import { loadDefinition, openExistingCatalog, pipelineTables } from './existing-table.js';

export interface InspectOptions extends CatalogOverrides {
  readonly json?: boolean;
  /** A pipeline spec whose catalog and storage blocks say where the table is. */
  readonly pipeline?: string;
}

/** Without a table name, the one table of the `--pipeline` spec. */
export async function inspectCommand(tableName: string | undefined, options: InspectOptions, print: (line: string) => void): Promise<void> {
  const spec = options.pipeline === undefined ? undefined : await loadDefinition(options.pipeline);
  const identifier = tableName === undefined ? pipelineTable(spec) : parseTableName(tableName);
  const opened = await openExistingCatalog(spec, options, identifier, 'inspect');
  const { catalog, warehousePath } = opened;
  try {
    const table = await catalog.loadTable(identifier);
    const { metadata } = table;
    const files = await liveDataFiles(table.io, metadata);
    // Live rows: deletes applied (what any reader returns), not the data files' total.
    const rowCount = await liveRowCountOf(table.io, metadata);
    const report = {
      table: formatIdentifier(identifier),
      location: metadata.location,
      metadataLocation: table.metadataLocation,
      formatVersion: metadata.formatVersion,
      tableUuid: metadata.tableUuid,
      currentSnapshotId: metadata.currentSnapshotId ?? null,
      rowCount,
      snapshots: metadata.snapshots.map((snapshot) => ({
        snapshotId: snapshot.snapshotId,
        parentSnapshotId: snapshot.parentSnapshotId ?? null,
        sequenceNumber: snapshot.sequenceNumber,
        timestamp: new Date(Number(snapshot.timestampMs)).toISOString(),
        summary: snapshot.summary,
      })),
      dataFiles: files.map((file) => ({ path: file.filePath, recordCount: file.recordCount, fileSizeInBytes: file.fileSizeInBytes })),
    };
    if (options.json === true) {
      print(stringifyJson(report, 2));
      return;
    }
    print(`table        ${report.table}  (format v${report.formatVersion}, uuid ${report.tableUuid})`);
    print(`location     ${report.location}`);
    print(`metadata     ${report.metadataLocation}`);
    print(`rows         ${rowCount}`);
    print(`snapshots    ${report.snapshots.length}`);
    for (const snapshot of report.snapshots) {
      const s = snapshot.summary;
      const current = snapshot.snapshotId === metadata.currentSnapshotId ? ' (current)' : '';
      print(
        `  ${snapshot.snapshotId}${current}  seq ${snapshot.sequenceNumber}  ${snapshot.timestamp}  ${s.operation}  ` +
          `+${s['added-records'] ?? 0} rows / +${s['added-data-files'] ?? 0} files` +
          (s['deleted-records'] === undefined ? '' : `, -${s['deleted-records']} rows`) +
          `  total ${s['total-records'] ?? '?'} rows in ${s['total-data-files'] ?? '?'} files`,
      );
    }
    print(`data files   ${files.length}`);
    for (const file of files) {
      const shown =
        warehousePath !== undefined && isLocalLocation(file.filePath) ? relative(warehousePath, fromFileUri(file.filePath)) : file.filePath;
      print(`  ${shown}  ${file.recordCount} rows  ${file.fileSizeInBytes} bytes`);
    }
  } finally {
    await opened.close();
  }
}

/** The pipeline's first table. */
function pipelineTable(spec: PipelineDefinition | undefined): TableIdentifier {
  const [table] = pipelineTables(spec);
  if (table === undefined) {
    throw new InvalidInputError('thund inspect needs a table: thund inspect <namespace.table>, or --pipeline FILE for its table');
  }
  return table;
}
