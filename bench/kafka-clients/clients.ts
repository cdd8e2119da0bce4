/**
 * The clients bench/kafka-clients knows, and what one child run reports. Only kafkajs is a Thund
 * dependency: the other two are installed by hand to measure them (the README's Benchmarks says
 * how), and a run skips a client that is not installed.
 */
export const CLIENTS = ['kafkajs', 'platformatic', 'confluent'] as const;
export type ClientName = (typeof CLIENTS)[number];

export const CLIENT_PACKAGES: Readonly<Record<ClientName, { readonly name: string; readonly install: string }>> = {
  kafkajs: { name: 'kafkajs', install: 'npm ci' },
  platformatic: { name: '@platformatic/kafka', install: 'npm install --no-save @platformatic/kafka@2.12.1' },
  // Its install downloads a prebuilt addon from GitHub, else builds librdkafka with static
  // dependencies it downloads; dynamic linking builds against the system's libssl and zlib instead.
  confluent: { name: '@confluentinc/kafka-javascript', install: 'CKJS_LINKING=dynamic npm install --no-save @confluentinc/kafka-javascript@1.10.1' },
};

export interface ChildResult {
  readonly client: ClientName;
  readonly records: number;
  readonly valueBytes: number;
  /** First record to last record. */
  readonly seconds: number;
  /** User + system CPU of the whole process (all threads) from creating the client to the last record. */
  readonly cpuSeconds: number;
  /** VmRSS once the client's module is loaded, before it connects. */
  readonly loadedRssMiB: number;
  readonly peakRssMiB: number;
}

/** The client's module, typed by the caller; a missing package says how to install it. */
export async function importClient<T>(client: ClientName): Promise<T> {
  const { name, install } = CLIENT_PACKAGES[client];
  try {
    // A specifier in a variable: TypeScript must not look for the optional packages' types.
    return (await import(name)) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') throw new Error(`${name} is not installed; to measure it: ${install}`, { cause: error });
    throw error;
  }
}

export function isInstalled(client: ClientName): boolean {
  try {
    import.meta.resolve(CLIENT_PACKAGES[client].name);
    return true;
  } catch {
    return false;
  }
}
