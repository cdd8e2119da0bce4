/**
 * `${NAME}` in the pipeline definition's data settings: source paths, a Kafka source's topic,
 * bootstrap_servers and options, and sink options (the catalog and storage blocks are substituted
 * when the catalog is opened, resolve-connection.ts). A variable that is unset, or a malformed
 * reference, is a problem naming the field and the variable, never a value.
 */
import type { PipelineDefinitionWire } from './definition-schema.js';
import { substituteEnv, templateReferences, type Environment } from './env-template.js';
import type { FieldPath, SpecProblem } from './yaml-locator.js';

export interface ExpandedWire {
  readonly wire: PipelineDefinitionWire;
  readonly problems: readonly SpecProblem[];
}

export function expandSpecEnv(wire: PipelineDefinitionWire, env: Environment): ExpandedWire {
  const problems: SpecProblem[] = [];
  const expand = (template: string, path: FieldPath): string => {
    const references = templateReferences(template);
    if ('problem' in references) {
      problems.push({ path, message: references.problem, target: 'value' });
      return template;
    }
    const substituted = substituteEnv(template, env);
    if ('value' in substituted) return substituted.value;
    const name = substituted.missing;
    problems.push({ path, message: `environment variable ${name} is not set (referenced as \${${name}})`, target: 'value' });
    return template;
  };
  const expandMap = (values: Readonly<Record<string, string>>, path: FieldPath): Record<string, string> =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value, [...path, key])]));

  const sources = Object.fromEntries(
    Object.entries(wire.sources).map(([name, source]) => {
      const at = ['sources', name];
      if (source.format === 'parquet') {
        const path = typeof source.path === 'string' ? expand(source.path, [...at, 'path']) : source.path.map((entry, i) => expand(entry, [...at, 'path', i]));
        return [name, { ...source, path }];
      }
      return [
        name,
        {
          ...source,
          ...(source.topic === undefined ? {} : { topic: expand(source.topic, [...at, 'topic']) }),
          ...(source.topics === undefined ? {} : { topics: source.topics.map((topic, i) => expand(topic, [...at, 'topics', i])) }),
          ...(source.bootstrap_servers === undefined ? {} : { bootstrap_servers: expand(source.bootstrap_servers, [...at, 'bootstrap_servers']) }),
          options: expandMap(source.options, [...at, 'options']),
        },
      ];
    }),
  );
  const sinks = Object.fromEntries(Object.entries(wire.sinks).map(([name, sink]) => [name, { ...sink, options: expandMap(sink.options, ['sinks', name, 'options']) }]));
  return { wire: { ...wire, sources, sinks }, problems };
}
