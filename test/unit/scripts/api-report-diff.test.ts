import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareApiReports, describeChanges, describeVerdict } from '../../../scripts/api-report-diff.js';
import { reportDeclarations } from '../../../scripts/api-report-parse.js';

const report = (...declarations: string[]): string =>
  ['## API Report File for "thund"', '', '```ts', '', 'import { z } from \'zod\';', '', ...declarations.flatMap((d) => [d, '']), '```', ''].join('\n');

/** The summary lines and its verdict for two reports built from declaration blocks. */
const summary = (before: readonly string[], after: readonly string[]): { verdict: string; lines: string[] } => {
  const changes = compareApiReports(report(...before), report(...after));
  return { verdict: describeVerdict(changes), lines: describeChanges(changes) };
};

// Blocks as etc/thund.api.md has them.
const thundTable = `// @public (undocumented)
export interface ThundTable {
    append(rows: RowsInput): Promise<TableWriteResult>;
    delete(where: string): Promise<TableDeleteResult>;
    // (undocumented)
    readonly identifier: TableIdentifier;
    overwrite(rows: RowsInput): Promise<TableWriteResult>;
    read(options?: ReadOptions): Promise<Table>;
    upsert(rows: RowsInput, options: UpsertOptions): Promise<TableWriteResult>;
}`;
const runOptions = `// @public (undocumented)
export interface RunOptions {
    readonly dryRun?: boolean;
    readonly fullRefresh?: boolean | readonly string[];
    readonly refresh?: readonly string[];
    // (undocumented)
    readonly signal?: AbortSignal;
}`;
const runPipelineOptions = `// @public (undocumented)
export interface RunPipelineOptions extends ConnectionConfig {
    readonly fullRefresh?: boolean;
    // (undocumented)
    readonly signal?: AbortSignal;
}`;
const thundError = `// @public (undocumented)
export class ThundError extends Error {
    constructor(code: string, message: string, options?: ThundErrorOptions);
    // (undocumented)
    readonly code: string;
    // (undocumented)
    readonly context: ErrorContext;
    // (undocumented)
    readonly retryable: boolean;
}`;
const pipelineBuilder = `// @public (undocumented)
export class PipelineBuilder {
    constructor(name: string);
    // (undocumented)
    build(): PipelineGraph;
    // (undocumented)
    flow(name: string, input: FlowInput): this;
}`;
const flowSkip = "// @public\nexport type FlowSkip = 'up-to-date' | 'once-done' | 'upstream-empty';";
const lowerOptions = `// @public (undocumented)
export interface LowerPipelineOptions extends ConnectionConfig {
    readonly out: string;
    readonly sparkVersion?: string;
}`;
const without = (block: string, line: string): string => {
  expect(block).toContain(line);
  return block.replace(`${line}\n`, '');
};
const withLine = (block: string, after: string, line: string): string => {
  expect(block).toContain(after);
  return block.replace(`${after}\n`, `${after}\n${line}\n`);
};

describe('compareApiReports', () => {
  const runPipeline = '// @public\nexport function runPipeline(graph: PipelineGraph): Promise<RunHandle>;';
  const planPipeline = "// @public\nexport function planPipeline(graph: PipelineGraph, format?: PlanFormat): Promise<string>;";

  it('calls a removed export and a changed one breaking, and a new one added', () => {
    const before = report(runPipeline, planPipeline, thundTable);
    const after = report(planPipeline.replace('format?: PlanFormat', 'format: PlanFormat'), thundTable, '// @public\nexport function servePipeline(graph: PipelineGraph): Promise<void>;');
    const changes = compareApiReports(before, after);
    expect(changes.added).toEqual(['servePipeline']);
    expect(changes.removed).toEqual(['runPipeline']);
    expect(describeChanges(changes)).toEqual([
      'BREAKING: export runPipeline was removed',
      'BREAKING: export planPipeline changed',
      'added: export servePipeline',
    ]);
    expect(describeVerdict(changes)).toBe('BREAKING changes to the public surface:');
  });

  it('ignores comment lines: a warning or release tag that changes is not a surface change', () => {
    const before = report(`// Warning: (ae-forgotten-export) The symbol "X" needs to be exported\n//\n${flowSkip}`);
    const changes = compareApiReports(before, report(flowSkip.replace('@public', '@beta')));
    expect(changes).toEqual({ added: [], removed: [], changed: [] });
    expect(describeVerdict(changes)).toBe('the report differs in comments or release tags only (nothing breaking)');
  });

  it('keeps the overloads of one function together', () => {
    const one = '// @public\nexport function lower(graph: PipelineGraph): string;';
    const two = '// @public\nexport function lower(graph: PipelineGraph, out: string): string;';
    expect(summary([one, two], [one]).lines).toEqual(['BREAKING: export lower changed']);
  });

  it('names the interface member that was removed, changed or became required, each breaking', () => {
    const table = without(thundTable, '    delete(where: string): Promise<TableDeleteResult>;').replace('read(options?: ReadOptions)', 'read(options: ReadOptions)');
    const options = runOptions.replace('readonly dryRun?: boolean', 'readonly dryRun: boolean');
    expect(summary([thundTable, runOptions], [table, options])).toEqual({
      verdict: 'BREAKING changes to the public surface:',
      lines: ['BREAKING: RunOptions.dryRun became required', 'BREAKING: ThundTable.delete was removed', 'BREAKING: ThundTable.read changed'],
    });
  });

  it('calls a new optional member additive, and the whole change compatible', () => {
    const before = without(runPipelineOptions, '    readonly fullRefresh?: boolean;');
    const optionalMethod = withLine(thundTable, '    append(rows: RowsInput): Promise<TableWriteResult>;', '    compact?(): Promise<void>;');
    expect(summary([before, thundTable], [runPipelineOptions, optionalMethod])).toEqual({
      verdict: 'compatible changes to the public surface (nothing breaking):',
      lines: ['added: RunPipelineOptions.fullRefresh (optional)', 'added: ThundTable.compact (optional)'],
    });
  });

  it('calls a new required property of an interface breaking', () => {
    const after = withLine(lowerOptions, '    readonly out: string;', "    readonly mode: 'project' | 'notebook';");
    expect(summary([lowerOptions], [after]).lines).toEqual([
      'BREAKING: LowerPipelineOptions.mode was added, required (code that builds a LowerPipelineOptions no longer compiles)',
    ]);
  });

  it('lists a new interface method as breaking for implementers only, and new class members as additive', () => {
    const table = withLine(thundTable, '    append(rows: RowsInput): Promise<TableWriteResult>;', '    compact(): Promise<void>;');
    const builder = withLine(pipelineBuilder, '    flow(name: string, input: FlowInput): this;', '    // (undocumented)\n    sink(name: string, input: SinkInput): this;');
    const error = withLine(thundError, '    readonly retryable: boolean;', '    readonly docsUrl: string;');
    expect(summary([thundTable, pipelineBuilder, thundError], [table, builder, error])).toEqual({
      verdict: 'changes to the public surface that break some users (none breaks every user):',
      lines: ['added: ThundTable.compact (breaking for code that implements this interface)', 'added: PipelineBuilder.sink', 'added: ThundError.docsUrl'],
    });
  });

  it('calls a new abstract class member and a changed constructor breaking', () => {
    const before = thundError.replace('export class', 'export abstract class');
    const after = withLine(before, '    readonly retryable: boolean;', '    abstract describe(): string;').replace('options?: ThundErrorOptions', 'options: ThundErrorOptions');
    expect(summary([before], [after]).lines).toEqual([
      'BREAKING: ThundError.constructor changed',
      'BREAKING: ThundError.describe was added, abstract (subclasses must implement it)',
    ]);
  });

  it('calls a changed extends clause breaking, naming both headers', () => {
    const after = lowerOptions.replace('extends ConnectionConfig', 'extends ConnectionConfig, RunOptions');
    expect(summary([lowerOptions], [after]).lines).toEqual([
      'BREAKING: export LowerPipelineOptions changed: `export interface LowerPipelineOptions extends ConnectionConfig` became `export interface LowerPipelineOptions extends ConnectionConfig, RunOptions`',
    ]);
  });

  const codes = '// @public (undocumented)\nexport const PROBLEM_CODES: {\n    readonly SPEC: "THUND_E_SPEC";\n    readonly CYCLE: "THUND_E_CYCLE";\n};';

  it('calls a changed type alias breaking, and a member a const loses or changes', () => {
    const selection = "// @public (undocumented)\nexport type ColumnSelection = {\n    readonly include: readonly string[];\n} | {\n    readonly except: readonly string[];\n};";
    const after = [selection.replace('readonly except', 'readonly exclude'), codes.replace('    readonly CYCLE: "THUND_E_CYCLE";\n', '').replace('"THUND_E_SPEC"', '"THUND_E_DEFINITION"')];
    expect(summary([selection, codes], after).lines).toEqual([
      'BREAKING: export ColumnSelection changed',
      'BREAKING: PROBLEM_CODES.SPEC changed',
      'BREAKING: PROBLEM_CODES.CYCLE was removed',
    ]);
  });

  it('calls a member a const gains additive: users read a const, they never build it', () => {
    const gained = codes.replace('    readonly CYCLE', '    readonly PIPELINE_MODULE: "THUND_E_PIPELINE_MODULE";\n    readonly CYCLE');
    expect(summary([codes], [gained])).toEqual({
      verdict: 'compatible changes to the public surface (nothing breaking):',
      lines: ['added: PROBLEM_CODES.PIPELINE_MODULE'],
    });
  });

  it('lists a literal a string union gains for review (exhaustive switches), and calls one it loses breaking', () => {
    const gained = flowSkip.replace("'upstream-empty'", "'upstream-empty' | 'cancelled'");
    expect(summary([flowSkip], [gained])).toEqual({
      verdict: 'changes to the public surface that break some users (none breaks every user):',
      lines: ["changed: FlowSkip gains 'cancelled' (breaking for exhaustive switches)"],
    });
    const swapped = flowSkip.replace("'once-done'", "'done-once'");
    expect(summary([flowSkip], [swapped]).lines).toEqual([
      "BREAKING: FlowSkip loses 'once-done'",
      "changed: FlowSkip gains 'done-once' (breaking for exhaustive switches)",
    ]);
    expect(summary([flowSkip], [flowSkip.replace("'up-to-date' | 'once-done'", "'once-done' | 'up-to-date'")]).lines).toEqual([
      'changed: export FlowSkip reads differently, with the same members (not breaking)',
    ]);
  });

  it('keeps a member whose type spans lines whole: a change inside its nested object type is a change of that member', () => {
    const serve = (retry: string): string => `// @public (undocumented)
export interface ServePipelineOptions extends ConnectionConfig {
    readonly httpHost?: string;
    readonly retry?: {
        // (undocumented)
        readonly attempts: number;${retry}
    };
    readonly signal: AbortSignal;
    source(name: string, options: {
        readonly format: 'parquet';
    }, input?: SourceInput): this;
}`;
    const before = serve('');
    const after = serve('\n        readonly backoffMs?: number;');
    expect([...reportDeclarations(report(before)).get('ServePipelineOptions')!.body!.members.keys()]).toEqual(['httpHost', 'retry', 'signal', 'source']);
    expect(summary([before], [after]).lines).toEqual(['BREAKING: ServePipelineOptions.retry changed']);
  });

  it('reads every interface and class of the checked-in report into named members', () => {
    const checkedIn = readFileSync(resolve(import.meta.dirname, '../../../etc/thund.api.md'), 'utf8');
    const declarations = reportDeclarations(checkedIn);
    expect([...declarations.get('ThundTable')!.body!.members.keys()]).toEqual(['append', 'delete', 'identifier', 'overwrite', 'read', 'upsert']);
    expect(declarations.get('ThundTable')!.body!.members.get('read')).toMatchObject({ optional: false, method: true });
    expect(declarations.get('RunPipelineOptions')!.body!.members.get('fullRefresh')).toMatchObject({ optional: true, method: false });
    const bodies = [...declarations.values()].filter((declaration) => declaration.kind === 'interface' || declaration.kind === 'class');
    expect(bodies.length).toBe(checkedIn.match(/^export (?:abstract )?(?:class|interface) /gm)!.length);
    for (const declaration of bodies) {
      expect(declaration.body, declaration.name).toBeDefined();
      for (const name of declaration.body!.members.keys()) expect(name, declaration.name).toMatch(/^[A-Za-z_$][\w$]*$/);
    }
  });
});
