/**
 * The override file the compose test adds to docker/compose.yaml (never a change to the users'
 * file) for an engine without a bridge network (the private engine here, see DESIGN.md "Docker
 * here"): every service on the host's network, its published ports dropped (they are the host's
 * own ports now), the service names resolving to loopback, builds on the host network, and each
 * listener that can be told so bound to 127.0.0.1 only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO } from './engine.js';

/** The host ports the stack's services listen on under host networking. */
export const COMPOSE_HOST_PORTS = { minioS3: 9000, minioConsole: 9001, rest: 8181, kafka: 9092, kafkaInternal: 19092, kafkaController: 9093, trino: 8080, serve: 9464 } as const;

/** Per service, what binds it to loopback (where its image takes an address). */
const LOOPBACK: Readonly<Record<string, readonly string[]>> = {
  minio: ['command: ["server", "/data", "--address", "127.0.0.1:9000", "--console-address", "127.0.0.1:9001"]'],
  kafka: ['environment:', '  KAFKA_LISTENERS: INTERNAL://127.0.0.1:19092,EXTERNAL://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093'],
  'thund-serve': ['command: ["serve", "/app/examples/kafka_cdc/pipeline.yaml", "--http-host", "127.0.0.1"]'],
};

/** The override for every service docker/compose.yaml has (their names are what the containers reach each other by). */
export function hostNetworkOverride(): string {
  const file = parse(readFileSync(join(REPO, 'docker', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, { build?: unknown }> };
  const names = Object.keys(file.services);
  const hosts = names.map((name) => `"${name}:127.0.0.1"`).join(', ');
  const services = names.map((name) =>
    [
      `  ${name}:`,
      '    network_mode: host',
      '    ports: !reset []',
      `    extra_hosts: [${hosts}]`,
      ...(file.services[name]?.build !== undefined ? ['    build:', '      network: host'] : []),
      ...(LOOPBACK[name] ?? []).map((line) => `    ${line}`),
    ].join('\n'),
  );
  return `services:\n${services.join('\n')}\n`;
}
