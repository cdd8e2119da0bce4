/**
 * The Apache Iceberg REST catalog fixture (the server the Iceberg project tests its REST clients
 * against) from Maven Central, backed by a file SQLite JDBC catalog and MinIO through S3FileIO.
 *
 * iceberg-open-api 1.10.1's main jar is shaded: it carries the server, Jetty, S3FileIO with the AWS
 * SDK, the SQLite driver and slf4j-simple, so nothing else goes on the classpath. Its own main
 * binds every interface (`new Server(port)`), so a ten-line launcher in the fixture's package,
 * compiled once into the cache, runs the fixture's own backend catalog and servlet behind a
 * loopback-only connector.
 */
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mavenArtifact } from './maven.js';
import { cacheDir, freePort, httpOk, runDir, runStep, startProcess, waitUntilReady } from './process.js';
import type { RunningService } from './service.js';

export const ICEBERG_OPEN_API_VERSION = '1.10.1';

const READY_TIMEOUT_MS = 120_000;
const LAUNCHER_CLASS = 'org.apache.iceberg.rest.ThundLoopbackRestServer';

/**
 * Reuses the fixture's environment parsing and defaults (its private `initializeBackendCatalog`,
 * reached by reflection) and its servlet; only the listening socket differs.
 */
const LAUNCHER_SOURCE = `package org.apache.iceberg.rest;

import java.lang.reflect.Method;
import org.apache.iceberg.util.PropertyUtil;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public final class ThundLoopbackRestServer {
  public static void main(String[] args) throws Exception {
    Method init = RESTCatalogServer.class.getDeclaredMethod("initializeBackendCatalog");
    init.setAccessible(true);
    RESTCatalogServer.CatalogContext context = (RESTCatalogServer.CatalogContext) init.invoke(new RESTCatalogServer());
    ServletContextHandler handler = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    handler.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTServerCatalogAdapter(context))), "/*");
    handler.insertHandler(new GzipHandler());
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(System.getProperty("thund.rest.host", "127.0.0.1"));
    connector.setPort(PropertyUtil.propertyAsInt(context.configuration(), RESTCatalogServer.REST_PORT, 8181));
    server.addConnector(connector);
    server.setHandler(handler);
    server.start();
    server.join();
  }
}
`;

/** What the catalog needs to reach the object store. */
export interface RestCatalogStorage {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  readonly bucket: string;
}

export interface RunningRestCatalog extends RunningService {
  readonly uri: string;
}

/** The fixture jar (≈210 MB, downloaded once); its manifest's main is the fixture's RESTCatalogServer. */
export async function restCatalogJar(): Promise<string> {
  return mavenArtifact({ groupId: 'org.apache.iceberg', artifactId: 'iceberg-open-api', version: ICEBERG_OPEN_API_VERSION });
}

/** The fixture jar and the compiled loopback launcher beside it. */
export async function restCatalogClasspath(): Promise<string[]> {
  const jar = await restCatalogJar();
  const hash = createHash('sha256').update(ICEBERG_OPEN_API_VERSION).update(LAUNCHER_SOURCE).digest('hex').slice(0, 16);
  const dir = cacheDir('rest-catalog-launcher', hash);
  const classes = join(dir, 'classes');
  if (!existsSync(join(classes, ...LAUNCHER_CLASS.split('.')) + '.class')) {
    const source = join(dir, 'ThundLoopbackRestServer.java');
    writeFileSync(source, LAUNCHER_SOURCE);
    await runStep('rest-catalog-launcher', 'javac', ['-nowarn', '-cp', jar, '-d', classes, source]);
  }
  return [classes, jar];
}

export async function startRestCatalog(storage: RestCatalogStorage): Promise<RunningRestCatalog> {
  const classpath = (await restCatalogClasspath()).join(':');
  const port = await freePort();
  const dir = runDir(`rest-catalog-${port}`);
  const uri = `http://127.0.0.1:${port}`;
  const service = startProcess({
    name: `rest-catalog-${port}`,
    command: 'java',
    args: ['-Xmx512m', '-Djava.awt.headless=true', '-cp', classpath, LAUNCHER_CLASS],
    cwd: dir,
    env: restCatalogEnv(storage, port, `jdbc:sqlite:${join(dir, 'catalog.sqlite')}`),
  });
  await waitUntilReady(service, () => httpOk(`${uri}/v1/config`), READY_TIMEOUT_MS);
  return {
    name: 'rest-catalog',
    version: `iceberg-open-api ${ICEBERG_OPEN_API_VERSION}`,
    uri,
    env: { THUND_TEST_REST_URI: uri },
    stop: () => service.stop(),
  };
}

/** The fixture's settings, as the environment variables it reads (its container image reads the same). */
export function restCatalogEnv(storage: RestCatalogStorage, port: number, jdbcUri: string): Record<string, string> {
  return {
    // CATALOG_X__Y_Z becomes catalog property x-y.z (double underscore → dash, underscore → dot).
    CATALOG_REST_PORT: String(port),
    CATALOG_URI: jdbcUri,
    CATALOG_JDBC_SCHEMA__VERSION: 'V1',
    CATALOG_WAREHOUSE: `s3://${storage.bucket}/`,
    CATALOG_IO__IMPL: 'org.apache.iceberg.aws.s3.S3FileIO',
    CATALOG_S3_ENDPOINT: storage.endpoint,
    CATALOG_S3_PATH__STYLE__ACCESS: 'true',
    CATALOG_CLIENT_REGION: storage.region,
    // The server logs every catalog property at start, so the keys go through the AWS SDK's own
    // environment variables (its default credentials chain) and never appear in the log.
    AWS_ACCESS_KEY_ID: storage.accessKey,
    AWS_SECRET_ACCESS_KEY: storage.secretKey,
    AWS_REGION: storage.region,
  };
}
