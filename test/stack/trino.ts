/**
 * Trino 483 with its Iceberg connector, as a local process on loopback, for the slower
 * `npm run test:trino` lane.
 *
 * Maven Central (as this workplace reaches it) serves Trino's jars and POMs but not the
 * `trino-server` tar.gz nor the plugin zips, so the server is assembled from the same parts the
 * tarball is made of: lib/ = `trino-main` and its runtime dependencies (the tarball's lib is
 * `trino-server-main`, which only adds the four-line `TrinoServer` main), plugin/iceberg/ =
 * `trino-iceberg` and its runtime dependencies minus the `provided` SPI jars the server itself
 * supplies, plus the SQLite JDBC driver for the JDBC catalog. Two small parts are ours: the
 * plugin's `META-INF/services/io.trino.spi.Plugin` (the plugin zip's packaging step writes it;
 * the jar does not carry it) and a main that calls `io.trino.server.Server#start`, compiled
 * once with the JDK 25 that Trino needs. No Python launcher: the JVM runs in the foreground,
 * owned by startProcess, with the flags the launcher's jvm.config would give it.
 *
 * Catalogs: an Iceberg REST catalog with S3 (MinIO), and/or an Iceberg JDBC catalog on a SQLite
 * file with the local file system (`file://` locations) — the latter reads Thund's embedded
 * catalog directly.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { java25, JAVA25_HOME } from './java.js';
import { mavenClasspath } from './maven.js';
import { cacheDir, delay, freePort, runDir, runStep, startProcess, StackError, waitUntilReady, type ServiceProcess } from './process.js';
import type { RunningService } from './service.js';

export const TRINO_VERSION = '483';
export const SQLITE_JDBC_VERSION = '3.54.1.0';

const READY_TIMEOUT_MS = 300_000;
const STOP_TIMEOUT_MS = 90_000;
const JAVA_HOME = JAVA25_HOME;
/** Our main (calls `io.trino.server.Server#start` with the version); it heads the install's classpath. */
export const TRINO_LAUNCHER_CLASS = 'ThundTrinoServer';
const LAUNCHER_SOURCE = `public final class ${TRINO_LAUNCHER_CLASS} {
  public static void main(String[] args) {
    new io.trino.server.Server().start(args[0]);
  }
}
`;
/** The plugin's dependencies that Trino's server provides (scope `provided` in trino-iceberg's POM). */
const PROVIDED_BY_SERVER = /^(trino-spi|slice|jackson-annotations|opentelemetry-api|opentelemetry-api-incubator|opentelemetry-context|opentelemetry-common|jts-core)-\d/;

/** The flags the launcher's jvm.config would give the server's JVM. */
export const TRINO_JVM_FLAGS: readonly string[] = [
  '-Xmx1G',
  '-XX:+UseG1GC',
  '-XX:+ExitOnOutOfMemoryError',
  '-XX:-OmitStackTraceInFastThrow',
  '-XX:+EnableDynamicAgentLoading',
  '-Djdk.attach.allowAttachSelf=true',
  // Trino refuses to start without the Vector API.
  '--add-modules=jdk.incubator.vector',
  '--enable-native-access=ALL-UNNAMED',
  '--sun-misc-unsafe-memory-access=allow',
];

export interface TrinoS3 {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
}

/** An Iceberg REST catalog whose tables live in S3 (MinIO). */
export interface TrinoRestCatalog {
  readonly type: 'rest';
  readonly uri: string;
  readonly s3: TrinoS3;
}

/** An Iceberg JDBC catalog on a SQLite file (Thund's embedded catalog), tables on the local disk. */
export interface TrinoSqliteCatalog {
  readonly type: 'sqlite';
  /** Path of the SQLite database (`<warehouse>/catalog.db` for Thund). */
  readonly catalogDb: string;
  /** Warehouse URI (file:///…), the default location of new tables. */
  readonly warehouse: string;
  /** The catalog_name column the tables are registered under (`default` for Thund). */
  readonly catalogName: string;
}

export type TrinoCatalog = TrinoRestCatalog | TrinoSqliteCatalog;

export interface StartTrinoOptions {
  /** Shorthand for catalog `iceberg` on this REST catalog (needs `s3`). */
  readonly restUri?: string;
  readonly s3?: TrinoS3;
  /** Catalogs by Trino catalog name (lowercase letters, digits, `_`). */
  readonly catalogs?: Readonly<Record<string, TrinoCatalog>>;
}

export interface RunningTrino extends RunningService {
  readonly uri: string;
  readonly logFile: string;
}

export interface TrinoInstall {
  readonly java: string;
  readonly classpath: string;
  readonly pluginDir: string;
  /** Class-data-sharing archive of the server's classes, written by the first run's JVM at exit. */
  readonly sharedArchive: string;
}

let installing: Promise<TrinoInstall> | undefined;

/** Resolves the jars (once per machine) and assembles the plugin folder and launcher (once per version). */
export function installTrino(): Promise<TrinoInstall> {
  installing ??= install().catch((error: unknown) => {
    installing = undefined;
    throw error;
  });
  return installing;
}

async function install(): Promise<TrinoInstall> {
  const java = await java25(`Trino ${TRINO_VERSION}`);
  const [serverJars, pluginJars, sqliteJars] = await Promise.all([
    mavenClasspath(`trino-server-${TRINO_VERSION}`, [{ groupId: 'io.trino', artifactId: 'trino-main', version: TRINO_VERSION }]),
    mavenClasspath(`trino-iceberg-${TRINO_VERSION}`, [{ groupId: 'io.trino', artifactId: 'trino-iceberg', version: TRINO_VERSION }]),
    mavenClasspath(`sqlite-jdbc-${SQLITE_JDBC_VERSION}`, [{ groupId: 'org.xerial', artifactId: 'sqlite-jdbc', version: SQLITE_JDBC_VERSION, intransitive: true }]),
  ]);
  const key = createHash('sha256')
    .update(JSON.stringify(['layout-2', TRINO_VERSION, SQLITE_JDBC_VERSION, LAUNCHER_SOURCE, PROVIDED_BY_SERVER.source, serverJars, pluginJars, sqliteJars]))
    .digest('hex')
    .slice(0, 16);
  const home = cacheDir(`trino-${TRINO_VERSION}-${key}`);
  const classes = join(home, 'classes');
  const pluginDir = join(home, 'plugin');
  const launcherJar = join(home, 'thund-trino-launcher.jar');
  const stamp = join(home, '.complete');
  if (!existsSync(stamp)) {
    rmSync(classes, { recursive: true, force: true });
    rmSync(pluginDir, { recursive: true, force: true });
    const iceberg = join(pluginDir, 'iceberg');
    mkdirSync(iceberg, { recursive: true });
    for (const jar of [...pluginJars, ...sqliteJars]) {
      if (!PROVIDED_BY_SERVER.test(basename(jar))) symlinkSync(jar, join(iceberg, basename(jar)));
    }
    const services = join(home, 'plugin-services');
    mkdirSync(join(services, 'META-INF', 'services'), { recursive: true });
    writeFileSync(join(services, 'META-INF', 'services', 'io.trino.spi.Plugin'), 'io.trino.plugin.iceberg.IcebergPlugin\n');
    await runStep('trino-plugin-services', join(JAVA_HOME, 'bin', 'jar'), ['cf', join(iceberg, 'thund-iceberg-plugin-services.jar'), '-C', services, 'META-INF']);
    const source = join(home, `${TRINO_LAUNCHER_CLASS}.java`);
    writeFileSync(source, LAUNCHER_SOURCE);
    await runStep('trino-launcher', join(JAVA_HOME, 'bin', 'javac'), ['-nowarn', '-cp', serverJars.join(':'), '-d', classes, source]);
    // A jar, not a class folder: the class-data-sharing archive refuses folders on the classpath.
    await runStep('trino-launcher-jar', join(JAVA_HOME, 'bin', 'jar'), ['cf', launcherJar, '-C', classes, '.']);
    writeFileSync(stamp, new Date().toISOString());
  }
  return { java, classpath: [launcherJar, ...serverJars].join(':'), pluginDir, sharedArchive: join(home, 'trino-app-cds.jsa') };
}

export async function startTrino(options: StartTrinoOptions): Promise<RunningTrino> {
  const catalogs: Record<string, TrinoCatalog> = { ...options.catalogs };
  if (options.restUri !== undefined) {
    if (options.s3 === undefined) throw new StackError('startTrino: restUri needs s3 (the REST catalog keeps its tables in S3)');
    catalogs['iceberg'] = { type: 'rest', uri: options.restUri, s3: options.s3 };
  }
  if (Object.keys(catalogs).length === 0) throw new StackError('startTrino: no catalog given (restUri + s3, or catalogs)');

  const installed = await installTrino();
  const port = await freePort();
  const dir = runDir(`trino-${port}`);
  const etc = join(dir, 'etc');
  const catalogDir = join(etc, 'catalog');
  const dataDir = join(dir, 'data');
  mkdirSync(catalogDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const uri = `http://127.0.0.1:${port}`;

  writeProperties(join(etc, 'config.properties'), {
    coordinator: 'true',
    'node-scheduler.include-coordinator': 'true',
    'http-server.http.port': String(port),
    'discovery.uri': uri,
    'node.environment': 'test',
    'node.id': `thund-trino-${port}`,
    // Airlift binds the HTTP server to node.bind-ip: loopback only.
    'node.bind-ip': '127.0.0.1',
    'node.internal-address': '127.0.0.1',
    'plugin.dir': installed.pluginDir,
    'catalog.config-dir': catalogDir,
    'query.max-memory': '512MB',
    'query.max-memory-per-node': '256MB',
  });
  // The JVM's working directory is the node's data directory (what the launcher's node.data-dir does).
  const env: Record<string, string> = { JAVA_HOME };
  for (const [name, catalog] of Object.entries(catalogs)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new StackError(`startTrino: catalog name ${JSON.stringify(name)} is not a plain lowercase identifier`);
    writeProperties(join(catalogDir, `${name}.properties`), catalogProperties(name, catalog, env));
  }

  const service = startProcess({
    name: `trino-${port}`,
    command: installed.java,
    // The archive halves the next start (measured 73 s → 37 s on two busy cores); the JVM
    // rebuilds it by itself when the classpath changes.
    args: ['-XX:+AutoCreateSharedArchive', `-XX:SharedArchiveFile=${installed.sharedArchive}`, '-Xlog:cds=off', ...TRINO_JVM_FLAGS, `-Dconfig=${join(etc, 'config.properties')}`, '-cp', installed.classpath, TRINO_LAUNCHER_CLASS, TRINO_VERSION],
    cwd: dataDir,
    env,
  });
  await waitUntilReady(service, () => trinoStarted(uri), READY_TIMEOUT_MS);
  return {
    name: 'trino',
    version: `trino ${TRINO_VERSION}`,
    uri,
    logFile: service.logFile,
    env: { THUND_TEST_TRINO_URI: uri },
    stop: () => stopGently(service),
  };
}

/**
 * SIGTERM and a longer wait than startProcess gives: the first JVM to exit writes the
 * class-data-sharing archive (≈100 MB), which takes over ten seconds on busy cores.
 */
async function stopGently(service: ServiceProcess): Promise<void> {
  const { child } = service;
  if (child.exitCode === null && child.pid !== undefined) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, delay(STOP_TIMEOUT_MS)]);
    }
  }
  await service.stop();
}

/** Catalog file contents; secrets go through the child's environment (`${ENV:…}`), never onto disk. */
function catalogProperties(name: string, catalog: TrinoCatalog, env: Record<string, string>): Record<string, string> {
  if (catalog.type === 'rest') {
    const prefix = `THUND_TRINO_${name.toUpperCase()}`;
    env[`${prefix}_S3_ACCESS_KEY`] = catalog.s3.accessKey;
    env[`${prefix}_S3_SECRET_KEY`] = catalog.s3.secretKey;
    return {
      'connector.name': 'iceberg',
      'iceberg.catalog.type': 'rest',
      'iceberg.rest-catalog.uri': catalog.uri,
      'fs.native-s3.enabled': 'true',
      's3.endpoint': catalog.s3.endpoint,
      's3.region': catalog.s3.region,
      's3.path-style-access': 'true',
      's3.aws-access-key': `\${ENV:${prefix}_S3_ACCESS_KEY}`,
      's3.aws-secret-key': `\${ENV:${prefix}_S3_SECRET_KEY}`,
    };
  }
  return {
    'connector.name': 'iceberg',
    'iceberg.catalog.type': 'jdbc',
    'iceberg.jdbc-catalog.driver-class': 'org.sqlite.JDBC',
    'iceberg.jdbc-catalog.connection-url': `jdbc:sqlite:${catalog.catalogDb}`,
    'iceberg.jdbc-catalog.catalog-name': catalog.catalogName,
    'iceberg.jdbc-catalog.default-warehouse-dir': catalog.warehouse,
    // file:// (and local://) locations; paths are resolved under local.location, so the root.
    'fs.local.enabled': 'true',
    'local.location': '/',
  };
}

function writeProperties(file: string, properties: Readonly<Record<string, string>>): void {
  writeFileSync(file, Object.entries(properties).map(([k, v]) => `${k}=${v}\n`).join(''));
}

/** Trino answers /v1/info early; it can take queries once `starting` is false. */
async function trinoStarted(uri: string): Promise<boolean> {
  const response = await fetch(`${uri}/v1/info`, { signal: AbortSignal.timeout(2_000) });
  if (!response.ok) return false;
  const info = (await response.json()) as { starting?: unknown };
  return info.starting === false;
}

