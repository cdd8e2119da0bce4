/**
 * `thund lower <pipeline.yaml> --target sdp --out DIR [--check] [--report-json FILE]
 * [--spark-version V]`: writes the pipeline as a Spark Declarative Pipelines project and prints
 * the lowering report (every dataset, flow and expectation: MAPPED, RUN BY NATIVE or REFUSED).
 * --check runs `spark-pipelines dry-run` on the project with the Spark named by
 * THUND_SPARK_PIPELINES_PYTHON / THUND_SPARK_PIPELINES_JARS.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { formatProblem } from '../../pipeline/problems.js';
import { formatReportJson, formatReportText } from '../../sdp/lowering-report.js';
import { writeProject } from '../../sdp/project-files.js';
import { startSparkPipelines } from '../../sdp/spark-pipelines-process.js';
import { sparkRuntimeFromEnv } from '../../sdp/spark-runtime.js';
import { DEFAULT_SPARK_VERSION, parseSparkVersion } from '../../sdp/spark-version.js';
import { lowerGraph } from '../lower-graph.js';
import { analysePipelineFile } from './validate.js';

export interface LowerOptions {
  readonly target?: string;
  readonly out?: string;
  readonly check: boolean;
  readonly reportJson?: string;
  readonly sparkVersion?: string;
  readonly warehouse?: string;
  readonly catalogName?: string;
}

export const LOWER_TARGETS = ['sdp'] as const;

/** 0 when lowered (and the check passed), 1 for an invalid pipeline or a failed check. */
export async function lowerCommand(specPath: string, options: LowerOptions, print: (line: string) => void): Promise<number> {
  if (options.target !== 'sdp') throw new InvalidInputError(`--target must be one of ${LOWER_TARGETS.join(', ')}${options.target === undefined ? '' : `, got "${options.target}"`}`);
  if (options.out === undefined) throw new InvalidInputError('thund lower needs --out DIR, the folder of the SDP project');
  const sparkVersion = parseSparkVersion(options.sparkVersion ?? DEFAULT_SPARK_VERSION);
  const analysed = await analysePipelineFile(specPath);
  if (analysed.problems.length > 0 || analysed.graph === undefined || analysed.definition === undefined) {
    for (const problem of analysed.problems) print(formatProblem(problem));
    return 1;
  }
  const { definition, graph } = analysed;
  const out = path.resolve(options.out);
  const { project, catalog } = lowerGraph(graph, definition, {
    out,
    sparkVersion: sparkVersion.text,
    ...(options.warehouse === undefined ? {} : { warehouse: options.warehouse }),
    ...(options.catalogName === undefined ? {} : { catalogName: options.catalogName }),
    sourceName: path.relative(process.cwd(), definition.specPath) || definition.specPath,
  });
  writeProject(out, project.files);
  print(formatReportText(project.report));
  if (options.reportJson !== undefined) writeFileSync(options.reportJson, formatReportJson(project.report));
  print(`wrote ${project.files.length} files to ${out}`);
  if (!options.check) return 0;
  const runtime = sparkRuntimeFromEnv(process.env);
  const spark = startSparkPipelines({
    runtime,
    command: 'dry-run',
    projectDir: out,
    secretConfs: catalog.secretConfs,
    onLine: (line) => print(`spark-pipelines: ${line}`),
  });
  const exit = await spark.exit;
  print(exit.code === 0 ? 'check: spark-pipelines dry-run passed' : `check: spark-pipelines dry-run failed (exit ${exit.code ?? exit.signal ?? '?'})`);
  return exit.code === 0 ? 0 : 1;
}
