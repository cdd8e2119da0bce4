/** The Java 25 JDK that Trino and Nessie run on (THUND_JAVA25_HOME, else the Temurin package's path). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { StackError } from './process.js';

export const JAVA25_HOME = process.env['THUND_JAVA25_HOME'] ?? '/usr/lib/jvm/temurin-25-jdk-amd64';

/** The `java` binary of the Java 25 JDK; fails naming `service` when it is missing. */
export async function java25(service: string): Promise<string> {
  const java = join(JAVA25_HOME, 'bin', 'java');
  if (!existsSync(java)) throw new StackError(`${service} needs Java 25, not found at ${java} (set THUND_JAVA25_HOME to a JDK 25)`);
  return java;
}
