/**
 * The REST catalog servers of the test stack, for suites that run against each of them: the
 * Iceberg project's REST fixture and Project Nessie (test/stack/nessie.ts), with what each does
 * its own way by design, so a suite states the difference instead of skipping.
 */
import { requireServiceEnv } from '../../stack/service.js';

export interface ServerDifferences {
  /** Table metadata holds only the current snapshot, without its parent id (Nessie keeps the history in its own commits). */
  readonly currentSnapshotOnly?: boolean;
  /** A purging drop leaves the files for the server's garbage collector (Nessie's GC). */
  readonly purgeLeavesFiles?: boolean;
}

export interface RestServerUnderTest {
  readonly name: string;
  /** The variable the stack sets to the server's REST base URI (without `/v1`). */
  readonly uriVariable: string;
  /** The warehouse to ask `/v1/config` for. */
  readonly warehouse?: string;
  readonly differences?: ServerDifferences;
}

/** The Iceberg project's REST fixture: no warehouse, no prefix. */
export const REST_FIXTURE: RestServerUnderTest = { name: 'Iceberg REST fixture', uriVariable: 'THUND_TEST_REST_URI' };

/** Project Nessie: its prefix names branch and warehouse, URL-encoded (`main%7Cwarehouse`). */
export const NESSIE: RestServerUnderTest = {
  name: 'Nessie',
  uriVariable: 'THUND_TEST_NESSIE_URI',
  warehouse: 'warehouse',
  differences: { currentSnapshotOnly: true, purgeLeavesFiles: true },
};

export const REST_SERVERS: readonly RestServerUnderTest[] = [REST_FIXTURE, NESSIE];

export function restServerUri(server: RestServerUnderTest): string {
  return requireServiceEnv(server.uriVariable);
}
