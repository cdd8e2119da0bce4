/**
 * A running test service as the global setup sees it: what it is (name, version for the summary
 * line), the environment variables through which tests find it, and how to stop it.
 */
export interface RunningService {
  readonly name: string;
  readonly version: string;
  /** e.g. THUND_TEST_S3_ENDPOINT=http://127.0.0.1:PORT; tests read these, never hard-coded ports. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** The line CI prints per service: `service minio RELEASE.… at http://127.0.0.1:PORT`. */
export function summaryLine(service: RunningService, where: string): string {
  return `service ${service.name.padEnd(14)} ${service.version.padEnd(28)} ${where}`;
}

/** Reads a variable a service provided; fails loudly (never skips) when the service is missing. */
export function requireServiceEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`${name} is not set: the test stack did not start the service this test needs (see test/stack/global-setup.ts)`);
  }
  return value;
}
