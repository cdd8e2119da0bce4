/** Evidence for the Spark lowering, the CLI, the TypeScript library, the Docker image, and what open issues promise. */
import { proof, type Capability } from '../capability.js';

const SDP = 'Spark Declarative Pipelines';
const CLI = 'CLI';
const DOCKER = 'Docker';
const LIBRARY = 'TypeScript library';
const PLANNED = 'Planned';

export const TOOL_CAPABILITIES: readonly Capability[] = [
  {
    id: 'sdp.lower',
    area: SDP,
    description: '`thund lower --target sdp` writes a Spark Declarative Pipelines project and reports every element as MAPPED, RUN BY NATIVE or REFUSED.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/sdp/lower-command.test.ts', 'thund lower writes the project and the JSON report, prints the text report, and lowers again into its own folder'),
      proof('unit', 'test/unit/sdp/report-completeness.test.ts', 'the lowering report of examples/sdp lists every element of the graph exactly once'),
      proof('interop', 'test/interop/sdp-spark-pipelines.test.ts', 'spark-pipelines dry-run accepts every SDP construct the lowering emits for examples/sdp'),
    ],
  },
  {
    id: 'sdp.spark-backend',
    area: SDP,
    description: '`thund run --backend spark` runs the lowered project with `spark-pipelines` and lands the rows the native run lands.',
    status: 'Available',
    proofs: [
      proof('interop', 'test/interop/sdp-spark-pipelines.test.ts', 'thund run --backend spark runs the lowered pipeline on Spark from the CLI entry and lands the rows the native run lands'),
      proof('interop', 'test/interop/sdp-spark-pipelines.test.ts', 'a batch pipeline, natively and on Spark lands identical rows in both catalogs (read back by pyiceberg)'),
      proof('interop', 'test/interop/sdp-spark-pipelines.test.ts', 'a streaming pipeline on Spark locally: an append flow lands every source row; a windowed aggregation in append mode lands exactly the windows its watermark closed'),
      proof('interop', 'test/interop/sdp-kafka-window.test.ts', 'a Kafka windowed count, natively and on Spark lands the same rows in both engines, each equal to DuckDB over the produced records, across two runs with late records'),
    ],
  },
  {
    id: 'sdp.auto-cdc',
    area: SDP,
    description: 'With `--spark-version 4.2`, an SCD type 1 `apply_changes` flow lowers to AUTO CDC.',
    status: 'Experimental',
    note: 'Proven on Spark 4.2.0 with Spark\'s in-memory test catalog only: no Iceberg runtime loads on Spark 4.2.',
    proofs: [proof('interop', 'test/interop/sdp-auto-cdc.test.ts', 'AUTO CDC SCD type 1 on Spark 4.2.0 lands exactly the rows SCD type 1 gives for the change events, over two runs with late events')],
  },
  {
    id: 'cli.inspect',
    area: CLI,
    description: '`thund inspect` shows snapshots, files and the row count (`--json` too), reading only; a missing table or warehouse is named and nothing is created.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/catalog-block.test.ts', 'an embedded catalog placed by the spec writes under the warehouse the block names (relative to the spec), and inspect --pipeline finds the table'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund inspect with bad input names a table that does not exist'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund inspect with bad input refuses a warehouse folder that does not exist, creating nothing'),
    ],
  },
  {
    id: 'cli.maintain',
    area: CLI,
    description: '`thund maintain` runs the named actions (or all, in order) on a table or a pipeline\'s tables, with `--dry-run` and `--json`.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/maintain.test.ts', 'thund maintain runs every action, in order, when none is named; the rows stay and the history is cut to what --retain-last keeps'),
      proof('e2e', 'test/e2e/maintain.test.ts', 'thund maintain --pipeline maintains the pipeline\'s tables, and refuses a table it does not write'),
      proof('e2e', 'test/e2e/maintain.test.ts', 'thund maintain refuses bad flags and table names, naming them'),
    ],
  },
  {
    id: 'cli.catalog-flags',
    area: CLI,
    description: '`--warehouse` and `--catalog-name` override the pipeline\'s catalog block.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/catalog-block.test.ts', 'an embedded catalog placed by the spec --warehouse on the command line wins over the block'),
      proof('unit', 'test/unit/app/open-catalog.test.ts', 'openCatalog: the embedded catalog --warehouse and --catalog-name win over the block (the flag relative to the working directory)'),
    ],
  },
  {
    id: 'cli.help',
    area: CLI,
    description: '`thund <command> --help` (or `-h`) prints the command\'s usage and exits 0.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/bad-input.test.ts', 'help thund run --help prints its usage and exits 0'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'help thund serve -h prints its usage and exits 0'),
    ],
  },
  {
    id: 'docker.files',
    area: DOCKER,
    description: '`docker/Dockerfile` and `docker/compose.yaml` are checked without an engine: pinned images, non-root user, ports on 127.0.0.1, healthchecks.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/docker/dockerfile.test.ts', 'docker/Dockerfile runs the final stage as a non-root user'),
      proof('unit', 'test/docker/dockerfile.test.ts', 'docker/Dockerfile pins every base image, on the newest Node major the package declares (a current LTS line)'),
      proof('unit', 'test/docker/compose.test.ts', 'docker/compose.yaml has the dev stack services'),
      proof('unit', 'test/docker/compose.test.ts', 'docker/compose.yaml publishes ports on 127.0.0.1 only, each host port once'),
    ],
  },
  {
    id: 'docker.image',
    area: DOCKER,
    description: 'The Thund image builds from `docker/Dockerfile`, runs as non-root with production dependencies only (its size printed), on a read-only root filesystem, with tini passing SIGTERM on and a HEALTHCHECK for serve, and runs the quickstart.',
    status: 'Preview',
    note: 'Proven in the Docker image lane (`npm run test:docker-image`), which `npm test` does not run.',
    proofs: [
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image prints the usage by default and runs as a non-root user'),
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image runs the quickstart pipeline on a read-only root filesystem; the host reads the table it wrote'),
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image is small: its size and its node_modules are printed and bounded'),
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image runs on the Node LTS release its base names, the newest line the package supports'),
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image serves until SIGTERM: healthy by its HEALTHCHECK, stopped cleanly well within the grace period'),
      proof('docker-image', 'test/docker/image.test.ts', 'docker/Dockerfile image runs the Kafka consumer of thund serve in its worker thread'),
    ],
  },
  {
    id: 'docker.compose',
    area: DOCKER,
    description:
      '`docker/compose.yaml` runs for real with the README\'s commands: `up -d --build --wait`, the quickstart through the `thund` service into the REST catalog, a Debezium topic landed by `thund-serve`, Trino reading both tables equal to DuckDB\'s reference, then `down -v`.',
    status: 'Preview',
    note: 'Proven in the containers lane (`npm run test:containers`), which `npm test` does not run; on an engine without a bridge the test adds a host-network override file.',
    proofs: [
      proof('containers', 'test/docker/compose-up.test.ts', 'docker/compose.yaml on a Docker engine up -d --build --wait: every service running, the ones with a healthcheck healthy'),
      proof('containers', 'test/docker/compose-up.test.ts', 'docker/compose.yaml on a Docker engine runs the quickstart through the thund service into the REST catalog, and Trino reads it'),
      proof('containers', 'test/docker/compose-up.test.ts', "docker/compose.yaml on a Docker engine lands examples/kafka_cdc's topic through thund-serve: Trino reads the SCD1 table and the SCD2 history"),
      proof('containers', 'test/docker/compose-up.test.ts', "docker/compose.yaml on a Docker engine answers the README's Trino command inside the stack"),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images names the images docker/compose.yaml uses'),
    ],
  },
  {
    id: 'test-stack.containers',
    area: DOCKER,
    description:
      '`THUND_STACK=containers` takes the test services (MinIO, the REST catalog, Nessie, Kafka, moto) from testcontainers, on the host network, from images under their upstream names (made by `test/docker/stack-images.ts` where no registry serves them).',
    status: 'Preview',
    note: '`npm run test:containers` runs the integration tests on this stack; `npm test` runs them on local processes.',
    proofs: [
      proof('unit', 'test/unit/stack/containers-module.test.ts', 'loads the testcontainers stack on this Node version'),
      proof('unit', 'test/unit/stack/containers-module.test.ts', "names broker settings as the apache/kafka image's variables"),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images MinIO serves, its healthcheck passes and mc makes the bucket'),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images the Iceberg REST fixture serves a catalog backed by MinIO'),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images Kafka takes its properties from KAFKA_* variables, answers the tools and kafkajs, and stops on SIGTERM'),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images Nessie answers its config endpoints'),
      proof('containers', 'test/docker/stack-images.test.ts', 'the stack images moto serves /moto-api/ by its default entrypoint, and its python3 imports the Glue server'),
    ],
  },
  {
    id: 'library.package-api',
    area: LIBRARY,
    description:
      "`import { … } from 'thund'` (ESM with declarations): build a pipeline, validate, plan, run (RunHandle and RunEvents), serve and lower it; open a catalog (embedded, REST or Glue) and append, overwrite, upsert, delete and read rows as Arrow.",
    status: 'Available',
    note: 'Rows given or read as Arrow take flat boolean, integer, floating point, string, date and timestamp columns; other types go through a DuckDB query.',
    proofs: [
      proof('e2e', 'test/e2e/package-api.test.ts', 'the packed package, installed into a fresh project type-checks the example against the package declarations'),
      proof('e2e', 'test/e2e/package-api.test.ts', 'the packed package, installed into a fresh project runs the pipeline and the table operations, and reads the rows back as Arrow'),
      proof('e2e', 'test/e2e/package-api.test.ts', 'the packed package, installed into a fresh project wrote a table pyiceberg reads with the same rows'),
      proof('unit', 'test/unit/app/pipeline-api.test.ts', 'the pipeline API on a builder graph runs: the RunEvents in order, a completed result, the rows in the table'),
      proof('unit', 'test/unit/app/pipeline-api.test.ts', 'the pipeline API on a builder graph serves until the signal, committing the input on the first trigger'),
      proof('unit', 'test/unit/app/pipeline-api.test.ts', 'the pipeline API on a builder graph lowers to an SDP project with a report entry for every dataset and flow'),
      proof('unit', 'test/unit/app/table-handle.test.ts', 'the table API on an embedded catalog appends an Arrow table of every flat type and reads the same values back, nulls and microseconds included'),
      proof('unit', 'test/unit/app/table-handle.test.ts', 'the table API on an embedded catalog overwrites, upserts by key, deletes by condition, and reads an older snapshot and a filtered one, refusing an unknown snapshot'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'the table API through openCatalog on REST (Iceberg REST fixture), files in MinIO appends Arrow, upserts by key from a DuckDB query, deletes by condition, and reads the current and the first snapshot back'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'the table API through openCatalog on REST (Nessie), files in MinIO appends Arrow, upserts by key from a DuckDB query, deletes by condition, and reads the current and the first snapshot back'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'the table API through openCatalog on Glue (moto), files in MinIO appends Arrow, upserts by key from a DuckDB query, deletes by condition, and reads the current and the first snapshot back'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'openCatalog refuses a REST catalog it cannot use, saying why and echoing no secret a URI where nothing listens: REST_NETWORK naming the URI and the refused connection'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'openCatalog refuses a REST catalog it cannot use, saying why and echoing no secret a URI of a live server that is not its catalog root: the server’s HTTP status, naming the URI'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'openCatalog refuses a REST catalog it cannot use, saying why and echoing no secret a token variable that is not set: an InvalidInputError naming the variable'),
      proof('integration', 'test/integration/table-api-catalogs.test.ts', 'openCatalog refuses a REST catalog it cannot use, saying why and echoing no secret S3 keys that MinIO refuses: the append fails with a ThundError without the secret, and no table is left behind'),
    ],
  },
  {
    id: 'library.api-report',
    area: LIBRARY,
    description:
      'The public surface is recorded in etc/thund.api.md; `npm test` fails when it changes unrecorded, saying whether the change is breaking and labelling each export, and each interface or class member, BREAKING, changed or added.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports calls a removed export and a changed one breaking, and a new one added'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports ignores comment lines: a warning or release tag that changes is not a surface change'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports names the interface member that was removed, changed or became required, each breaking'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports calls a new optional member additive, and the whole change compatible'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports lists a new interface method as breaking for implementers only, and new class members as additive'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports lists a literal a string union gains for review (exhaustive switches), and calls one it loses breaking'),
      proof('unit', 'test/unit/scripts/api-report-diff.test.ts', 'compareApiReports calls a member a const gains additive: users read a const, they never build it'),
    ],
  },
  {
    id: 'library.typescript-pipelines',
    area: LIBRARY,
    description:
      '`thund run | validate | plan | lower | serve pipeline.ts` (and .mts, .js, .mjs): a module whose default export is a built graph, with `catalog` and `storage` exports as a spec\'s blocks; the same IR as its YAML twin, and problems as `file:line:col` lines in the .ts file.',
    status: 'Available',
    note: 'TypeScript is compiled (tsx), not type-checked: run tsc for type errors. A relative Parquet path in a module is taken from the working directory.',
    proofs: [
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'examples/cdc_scd2: the TypeScript twin of the YAML spec gives the same IR, its origins at the .ts lines that declared each element'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'examples/cdc_scd2: the TypeScript twin of the YAML spec validates, plans and lowers as the YAML spec does'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'examples/cdc_scd2: the TypeScript twin of the YAML spec runs into the same table: one SCD2 snapshot per change file, the same history rows'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', "problems in a pipeline module names the .ts line of each element at fault, as YAML problems name the spec's lines"),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module a compile error, at its line and column'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module a throw while loading, at the line that threw'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', "problems in a pipeline module a builder's own refusal, with its code"),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module a builder input of the wrong shape, at its line, naming the field'),
      proof('unit', 'test/unit/pipeline/builder-input-check.test.ts', 'builder inputs are checked as they are declared keeps the declaring line: the first stack frame outside the builder is the caller'),
      proof('unit', 'test/unit/pipeline/builder-input-check.test.ts', 'builder inputs are checked as they are declared accepts every form the types allow'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module a builder exported unbuilt'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module a catalog export the spec schema refuses, at the export'),
      proof('e2e', 'test/e2e/typescript-pipeline.test.ts', 'problems in a pipeline module loads an .mjs module, and a .ts module in a CommonJS package'),
      proof('e2e', 'test/e2e/package-api.test.ts', 'the packed package, installed into a fresh project runs a TypeScript pipeline that imports the package with the installed thund command, as its YAML twin runs'),
    ],
  },
  {
    id: 'planned.compose-stack',
    area: PLANNED,
    description: 'The compose dev stack (`docker compose -f docker/compose.yaml up`) brought up and run for real.',
    status: 'Planned',
    proofs: [],
  },
  {
    id: 'planned.node-22-24',
    area: PLANNED,
    description: 'Node.js 22 and 24 support (today: Node 20).',
    status: 'Planned',
    proofs: [],
  },
  {
    id: 'planned.serve-outages',
    area: PLANNED,
    description: '`thund serve` rides through catalog, storage and broker outages with retries instead of stopping.',
    status: 'Planned',
    proofs: [],
  },
];
