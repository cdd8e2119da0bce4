/**
 * A loopback TCP proxy in front of a real service, to stage its outages: `freeze()` stops every
 * byte both ways (connections stay open, as with a SIGSTOPped server) until `thaw()`; `kill()`
 * closes the listener and resets every connection (connection refused, as with a dead server)
 * until `restart()` listens again on the same port.
 */
import { createServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  readonly toUpstream: Buffer[];
  readonly toClient: Buffer[];
}

export class TcpFreezeProxy {
  private server: Server | undefined;
  private frozen = false;
  private readonly pairs = new Set<Pair>();

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  static async start(targetUrl: string): Promise<TcpFreezeProxy> {
    const url = new URL(targetUrl);
    const target = { host: url.hostname, port: Number(url.port) };
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const proxy = new TcpFreezeProxy(target, port);
    await proxy.restart();
    return proxy;
  }

  /** The target URL with the proxy's address in place of the service's. */
  url(targetUrl: string): string {
    const url = new URL(targetUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString().replace(/\/$/, '');
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) {
      if (pair.upstream === undefined) this.connect(pair);
      this.flush(pair);
    }
  }

  async kill(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.destroy();
    }
    this.pairs.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  close(): Promise<void> {
    return this.kill();
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined, toUpstream: [], toClient: [] };
    this.pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (this.frozen || pair.upstream === undefined) pair.toUpstream.push(chunk);
      else pair.upstream.write(chunk);
    });
    const drop = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('close', drop).on('error', drop);
    if (!this.frozen) this.connect(pair);
  }

  private connect(pair: Pair): void {
    const upstream = new Socket();
    pair.upstream = upstream;
    upstream.connect(this.target.port, this.target.host, () => this.flush(pair));
    upstream.on('data', (chunk: Buffer) => {
      if (this.frozen) pair.toClient.push(chunk);
      else pair.client.write(chunk);
    });
    const drop = (): void => {
      this.pairs.delete(pair);
      pair.client.destroy();
      upstream.destroy();
    };
    upstream.on('close', drop).on('error', drop);
  }

  private flush(pair: Pair): void {
    if (this.frozen) return;
    if (pair.upstream !== undefined && pair.upstream.readyState === 'open') for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
  }
}
