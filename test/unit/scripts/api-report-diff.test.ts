import { describe, expect, it } from 'vitest';
import { compareApiReports, describeChanges } from '../../../scripts/api-report-diff.js';

const report = (...declarations: string[]): string =>
  ['## API Report File for "thund"', '', '```ts', '', 'import { z } from \'zod\';', '', ...declarations.flatMap((d) => [d, '']), '```', ''].join('\n');

describe('compareApiReports', () => {
  const runPipeline = '// @public\nexport function runPipeline(graph: PipelineGraph): Promise<RunHandle>;';
  const runEvent = "// @public (undocumented)\nexport type RunPhase = 'planning' | 'done';";
  const table = '// @public (undocumented)\nexport interface ThundTable {\n    read(): Promise<Table>;\n}';

  it('calls a removed export and a changed one breaking, and a new one added', () => {
    const before = report(runPipeline, runEvent, table);
    const after = report(runEvent.replace("'done'", "'finished'"), table, '// @public\nexport function servePipeline(graph: PipelineGraph): Promise<void>;');
    const changes = compareApiReports(before, after);
    expect(changes).toEqual({ added: ['servePipeline'], removed: ['runPipeline'], changed: ['RunPhase'] });
    expect(describeChanges(changes)).toEqual([
      'BREAKING: export runPipeline was removed',
      'BREAKING: export RunPhase changed (breaking unless purely additive: review the diff)',
      'added: export servePipeline',
    ]);
  });

  it('ignores comment lines: a warning or release tag that changes is not a surface change', () => {
    const before = report(`// Warning: (ae-forgotten-export) The symbol "X" needs to be exported\n//\n${runEvent}`);
    expect(compareApiReports(before, report(runEvent))).toEqual({ added: [], removed: [], changed: [] });
  });

  it('keeps the overloads of one function together', () => {
    const one = '// @public\nexport function lower(graph: PipelineGraph): string;';
    const two = '// @public\nexport function lower(graph: PipelineGraph, out: string): string;';
    expect(compareApiReports(report(one, two), report(one))).toEqual({ added: [], removed: [], changed: ['lower'] });
  });
});
