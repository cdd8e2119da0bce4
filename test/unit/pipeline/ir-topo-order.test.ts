/** topoOrder: dependencies first, ties by declaration order, cycles refused. */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { parquet, pipeline } from '../../../src/pipeline/builder.js';
import type { FlowDependencies } from '../../../src/pipeline/ir/flow.js';
import { withDependencies, type PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { topoOrder } from '../../../src/pipeline/topo-order.js';

/** Dependencies as a test states them: flow name → the datasets it reads (`~x` = STREAM(x)). */
function withReads(graph: PipelineGraph, reads: Record<string, string[]>): PipelineGraph {
  const dependencies = new Map<string, FlowDependencies>(
    Object.entries(reads).map(([flow, names]) => [
      flow,
      { reads: names.map((name) => ({ name: name.replace(/^~/, ''), streaming: name.startsWith('~') })), aggregatesStream: false },
    ]),
  );
  return withDependencies(graph, dependencies);
}

describe('topoOrder', () => {
  it('puts each dataset after what it is computed from, and each flow after the flows writing what it reads', () => {
    // Declared in reverse of the data flow on purpose.
    const graph = withReads(
      pipeline('p')
        .materializedView('lake.report', { sql: 'x' })
        .materializedView('lake.clean', { sql: 'x' })
        .source('raw', parquet('a'))
        .build(),
      { 'lake.report': ['lake.clean'], 'lake.clean': ['raw'] },
    );
    const order = topoOrder(graph);
    expect(order.datasets.map((d) => d.name)).toEqual(['raw', 'lake.clean', 'lake.report']);
    expect(order.flows.map((f) => f.name)).toEqual(['lake.clean', 'lake.report']);
  });

  it('keeps declaration order among independent elements (stable)', () => {
    const graph = withReads(
      pipeline('p')
        .source('b', parquet('b'))
        .source('a', parquet('a'))
        .streamingTable('lake.z')
        .materializedView('lake.y', { sql: 'x' })
        .flow('z2', { target: 'lake.z', sql: 'x' })
        .flow('z1', { target: 'lake.z', sql: 'x' })
        .build(),
      { z2: ['~a'], z1: ['~b'], 'lake.y': ['a', 'lake.z'] },
    );
    const order = topoOrder(graph);
    expect(order.datasets.map((d) => d.name)).toEqual(['b', 'a', 'lake.z', 'lake.y']);
    // lake.y's flow waits for both writers of lake.z; the two writers keep their declared order.
    expect(order.flows.map((f) => f.name)).toEqual(['z2', 'z1', 'lake.y']);
    expect(topoOrder(graph).flows.map((f) => f.name)).toEqual(order.flows.map((f) => f.name));
  });

  it('names the datasets of a cycle', () => {
    const graph = withReads(pipeline('p').view('a', { sql: 'x' }).view('b', { sql: 'x' }).view('c', { sql: 'x' }).build(), {
      a: ['b'],
      b: ['a'],
      c: ['a'],
    });
    expect(() => topoOrder(graph)).toThrow(InvalidInputError);
    expect(() => topoOrder(graph)).toThrow('the pipeline has a dependency cycle among: a, b, c');
  });
});
