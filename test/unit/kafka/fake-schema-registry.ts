/**
 * A loopback Confluent-style schema registry over node:http: GET /schemas/ids/{id} answers the
 * registered schema, 404 with error_code 40403 for unknown ids, and a chosen status for ids set
 * to fail. It requires basic auth when credentials are given and counts the requests it served.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistryEntry {
  readonly schema: unknown;
  readonly schemaType?: string;
  readonly references?: ReadonlyArray<{ name: string; subject: string; version: number }>;
}

export class FakeSchemaRegistry {
  readonly requests: string[] = [];
  readonly failing = new Map<number, number>();
  private server: Server | undefined;

  constructor(
    private readonly schemas: ReadonlyMap<number, RegistryEntry>,
    private readonly credentials?: { username: string; password: string },
  ) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      this.requests.push(`${request.method} ${request.url}`);
      const send = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/vnd.schemaregistry.v1+json' });
        response.end(JSON.stringify(body));
      };
      if (this.credentials !== undefined) {
        const expected = `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`;
        if (request.headers.authorization !== expected) return send(401, { error_code: 40101, message: 'Unauthorized' });
      }
      const match = /^\/schemas\/ids\/(\d+)$/.exec(request.url ?? '');
      if (request.method !== 'GET' || match === null) return send(404, { error_code: 404, message: 'HTTP 404 Not Found' });
      const id = Number(match[1]);
      const failure = this.failing.get(id);
      if (failure !== undefined) return send(failure, { error_code: failure * 100, message: 'failing on purpose' });
      const entry = this.schemas.get(id);
      if (entry === undefined) return send(404, { error_code: 40403, message: 'Schema not found' });
      const body: Record<string, unknown> = { schema: JSON.stringify(entry.schema) };
      if (entry.schemaType !== undefined) body['schemaType'] = entry.schemaType;
      if (entry.references !== undefined) body['references'] = entry.references;
      return send(200, body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}
