/**
 * A single-node Kafka broker in KRaft mode (broker and controller in one JVM), from Maven Central
 * jars, on two free loopback ports. Storage is formatted fresh for every start, so a run never
 * sees another run's topics.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { mavenClasspath, type MavenCoordinate } from './maven.js';
import { runDir, runStep, startProcess, twoFreePorts, waitUntilReady } from './process.js';
import type { RunningService } from './service.js';

export const KAFKA_VERSION = '4.4.0';
const LOG4J_VERSION = '2.25.5';

/**
 * kafka_2.13 brings the broker, the controller and StorageTool; its pom declares slf4j-api 1.7 and
 * no logging backend, so the slf4j 2 API and log4j2's binding for it are added, as the binary
 * distribution does.
 */
const ARTIFACTS: readonly MavenCoordinate[] = [
  { groupId: 'org.apache.kafka', artifactId: 'kafka_2.13', version: KAFKA_VERSION },
  { groupId: 'org.slf4j', artifactId: 'slf4j-api', version: '2.0.17' },
  { groupId: 'org.apache.logging.log4j', artifactId: 'log4j-api', version: LOG4J_VERSION },
  { groupId: 'org.apache.logging.log4j', artifactId: 'log4j-core', version: LOG4J_VERSION },
  { groupId: 'org.apache.logging.log4j', artifactId: 'log4j-slf4j2-impl', version: LOG4J_VERSION },
];

const READY_TIMEOUT_MS = 120_000;

/** The broker's jars (downloaded once into the cache). */
export async function kafkaClasspath(): Promise<string[]> {
  return mavenClasspath(`kafka-${KAFKA_VERSION}`, ARTIFACTS);
}

/** The broker's jars plus kafka-tools (the command-line tools' mains: BrokerApiVersionsCommand, TopicCommand, ConsoleProducer, …). */
export async function kafkaToolsClasspath(): Promise<string[]> {
  return mavenClasspath(`kafka-tools-${KAFKA_VERSION}`, [...ARTIFACTS, { groupId: 'org.apache.kafka', artifactId: 'kafka-tools', version: KAFKA_VERSION }]);
}

/**
 * A listener for clients that reach the broker through something in between (a test's TCP proxy):
 * it listens on `port` and tells clients to connect to `advertisedPort`, while the broker itself
 * keeps using its own listener.
 */
export interface ProxiedListener {
  readonly port: number;
  readonly advertisedPort: number;
}

/** `proxied`: a broker of a test's own whose clients all pass through a proxy (their bootstrap address is the proxy's). */
export async function startKafka(options: { readonly proxied?: ProxiedListener } = {}): Promise<RunningService & { brokers: string }> {
  const classpath = (await kafkaClasspath()).join(':');
  const [brokerPort, controllerPort] = await twoFreePorts();
  const dir = runDir(`kafka-${brokerPort}`);
  const serverProperties = join(dir, 'server.properties');
  const log4jConfig = join(dir, 'log4j2.properties');
  writeFileSync(serverProperties, propertiesFile(kafkaServerProperties({ brokerPort, controllerPort, logDirs: join(dir, 'data'), proxied: options.proxied })));
  writeFileSync(log4jConfig, LOG4J2_CONFIG);
  // C1 only and the serial collector: a test broker starts sooner and takes less of a 2-core machine.
  const jvm = ['-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${log4jConfig}`, '-cp', classpath];

  await runStep(`kafka-format-${brokerPort}`, 'java', [...jvm, 'kafka.tools.StorageTool', 'format', '--standalone', '-t', clusterId(), '-c', serverProperties]);

  const service = startProcess({ name: `kafka-${brokerPort}`, command: 'java', args: [...jvm, 'kafka.Kafka', serverProperties], cwd: dir });
  const brokers = `127.0.0.1:${brokerPort}`;
  await waitUntilReady(service, () => adminAnswers(brokers), READY_TIMEOUT_MS);
  return {
    name: 'kafka',
    version: `kafka ${KAFKA_VERSION}`,
    brokers,
    env: { THUND_TEST_KAFKA_BROKERS: brokers },
    stop: () => service.stop(),
  };
}

/** The broker's settings (one node, broker and controller, everything on loopback); the containers lane passes them as the image's KAFKA_* variables. */
export function kafkaServerProperties(args: { brokerPort: number; controllerPort: number; logDirs: string; proxied?: ProxiedListener | undefined }): Record<string, string> {
  const { brokerPort, controllerPort, proxied } = args;
  const external = proxied === undefined ? { listener: '', advertised: '', protocol: '' } : {
    listener: `,PROXIED://127.0.0.1:${proxied.port}`,
    advertised: `,PROXIED://127.0.0.1:${proxied.advertisedPort}`,
    protocol: ',PROXIED:PLAINTEXT',
  };
  return {
    'process.roles': 'broker,controller',
    'node.id': '1',
    listeners: `PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}${external.listener}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${brokerPort}${external.advertised}`,
    'listener.security.protocol.map': `PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${external.protocol}`,
    'inter.broker.listener.name': 'PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'controller.quorum.bootstrap.servers': `127.0.0.1:${controllerPort}`,
    'log.dirs': args.logDirs,
    'num.partitions': '1',
    'offsets.topic.replication.factor': '1',
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'transaction.state.log.num.partitions': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    'auto.create.topics.enable': 'true',
  };
}

const propertiesFile = (properties: Record<string, string>): string => `${Object.entries(properties).map(([key, value]) => `${key}=${value}`).join('\n')}\n`;

// Everything to stdout, which startProcess sends to the service's log file.
const LOG4J2_CONFIG = `status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = STDOUT
logger.kafka-request.name = kafka.request.logger
logger.kafka-request.level = WARN
`;

/** A Kafka cluster id is a base64url UUID without padding; one starting with '-' would read as a CLI flag. */
export function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export async function adminAnswers(brokers: string): Promise<boolean> {
  const admin = new Kafka({ clientId: 'thund-stack-health', brokers: [brokers], logLevel: logLevel.NOTHING, connectionTimeout: 2_000, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
