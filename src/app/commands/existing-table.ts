/**
 * What commands on existing tables (inspect, maintain) share: the pipeline spec whose catalog
 * and storage blocks say where tables live, and that catalog opened without ever creating a
 * warehouse (table names are parsed by ../table-name.ts).
 */
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { InvalidInputError, NoSuchTableError } from '../../errors.js';
import { isTableDataset } from '../../pipeline/ir/dataset.js';
import { formatProblem } from '../../pipeline/problems.js';
import type { PipelineDefinition } from '../../pipeline/spec-to-ir.js';
import { loadPipelineDefinition } from '../../pipeline/definition-file.js';
import { openCatalog, type CatalogOverrides, type OpenedCatalog } from '../open-catalog.js';

/** The catalog of `spec` (the embedded default without one); a warehouse that does not exist is an error, never created. */
export async function openExistingCatalog(
  spec: PipelineDefinition | undefined,
  options: CatalogOverrides,
  identifier: TableIdentifier,
  verb: string,
): Promise<OpenedCatalog> {
  try {
    return await openCatalog(spec, { ...options, existingOnly: true });
  } catch (error) {
    if (!(error instanceof NoSuchTableError)) throw error;
    const table = formatIdentifier(identifier);
    throw new NoSuchTableError(`cannot ${verb} ${table}: ${error.message}`, { cause: error, context: { ...error.context, table } });
  }
}

export async function loadDefinition(specPath: string): Promise<PipelineDefinition> {
  const loaded = await loadPipelineDefinition(specPath);
  if (!loaded.ok) throw new InvalidInputError(loaded.problems.map(formatProblem).join('\n'), { context: { file: specPath } });
  return loaded.definition;
}

/** The tables the pipeline writes, in its order. */
export function pipelineTables(spec: PipelineDefinition | undefined): TableIdentifier[] {
  return (spec?.graph.datasets ?? []).filter(isTableDataset).map((dataset) => dataset.table.identifier);
}
