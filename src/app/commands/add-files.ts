/**
 * `thund add-files <namespace.table> <paths | s3://bucket/prefix/ | glob>…`: registers existing
 * Parquet files in a table without rewriting them (table/add-files.ts), with the catalog resolved
 * as `thund inspect` does. Local paths and globs become file:// URIs; an S3 prefix ending in `/`
 * names every `.parquet` object under it, an S3 glob the keys it matches (s3-parquet-objects.ts),
 * listed through the table's own storage.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { formatIdentifier } from '../../../catalog/catalog.js';
import { matchS3Objects } from '../../../connectors/parquet/s3-parquet-objects.js';
import { toFileUri } from '../../../connectors/storage/local-file-io.js';
import { globToRegExp, hasGlob, literalPrefix } from '../../../connectors/storage/object-glob.js';
import { S3FileIO } from '../../../connectors/storage/s3-file-io.js';
import { isS3Location } from '../../../connectors/storage/s3-location.js';
import { InvalidInputError } from '../../errors.js';
import type { FileIO } from '../../iceberg/file-io.js';
import { stringifyJson } from '../../iceberg/json.js';
import { addFiles } from '../../table/add-files.js';
import { parseTableName } from '../table-name.js';
import { loadDefinition, openExistingCatalog } from './existing-table.js';
import type { InspectOptions } from './inspect.js';

export interface AddFilesOptions extends InspectOptions {
  readonly dryRun?: boolean;
}

export async function addFilesCommand(tableName: string, paths: readonly string[], options: AddFilesOptions, print: (line: string) => void): Promise<void> {
  if (paths.length === 0) throw new InvalidInputError('thund add-files needs files: thund add-files <namespace.table> <paths | s3://bucket/prefix/ | glob>…');
  const spec = options.pipeline === undefined ? undefined : await loadDefinition(options.pipeline);
  const identifier = parseTableName(tableName);
  const opened = await openExistingCatalog(spec, options, identifier, 'add files to');
  try {
    const table = await opened.catalog.loadTable(identifier);
    const locations: string[] = [];
    for (const path of paths) {
      const found = await expand(path, formatIdentifier(identifier), table.io);
      if (found.length === 0) throw new InvalidInputError(`${path} names no Parquet file`, { context: { path } });
      locations.push(...found);
    }
    const result = await addFiles({ catalog: opened.catalog, identifier, table, locations, dryRun: options.dryRun === true });
    const { plan } = result;
    if (options.json === true) {
      const files = plan.files.map((file) => ({ path: file.filePath, recordCount: file.recordCount, fileSizeInBytes: file.fileSizeInBytes }));
      print(stringifyJson({ table: formatIdentifier(identifier), dryRun: options.dryRun === true, files, rows: plan.rows, bytes: plan.bytes, snapshotId: result.snapshotId ?? null }, 2));
      return;
    }
    const summary = `${plan.files.length} files, ${plan.rows} rows, ${plan.bytes} bytes`;
    if (result.snapshotId === undefined) {
      print(`add-files (dry run): would add ${summary} to ${formatIdentifier(identifier)}`);
      for (const file of plan.files) print(`  ${file.filePath}  ${file.recordCount} rows  ${file.fileSizeInBytes} bytes`);
    } else {
      print(`add-files: ${summary} → snapshot ${result.snapshotId}`);
    }
  } finally {
    await opened.close();
  }
}

/** `table` names the table in messages; its FileIO lists S3 paths (the files must be where the table's storage reads). */
async function expand(path: string, table: string, tableIo: FileIO): Promise<string[]> {
  if (isS3Location(path)) {
    if (!(tableIo instanceof S3FileIO)) {
      throw new InvalidInputError(`${path} is on S3, but the files of ${table} are read from local storage: add files the table's storage can read`, {
        context: { path, table },
      });
    }
    return (await matchS3Objects(tableIo, 'add-files', path)).map((entry) => entry.location);
  }
  if (path.startsWith('file://')) return [path];
  const absolute = resolve(path);
  if (hasGlob(absolute)) {
    const root = literalPrefix(absolute).replace(/[^/]*$/, '');
    const matcher = globToRegExp(absolute);
    return (await filesUnder(root)).filter((file) => matcher.test(file)).map(toFileUri);
  }
  if ((await stat(absolute).catch(() => undefined))?.isDirectory() === true) {
    return (await filesUnder(absolute)).filter((file) => file.toLowerCase().endsWith('.parquet')).map(toFileUri);
  }
  return [toFileUri(absolute)];
}

/** Every file under a folder, as absolute paths in sorted order ([] when the folder does not exist). */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
