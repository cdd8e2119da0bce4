/**
 * The namespace routes of the REST catalog (ICEBERG.md §7.4): list, create, exists, drop and
 * properties, each checked against the server's advertised endpoints first.
 */
import { InvalidInputError, NoSuchNamespaceError } from '../../src/errors.js';
import { supportsEndpoint, type RestConfig } from './config.js';
import { ENDPOINTS, requireEndpoint } from './endpoints.js';
import type { RestHttp } from './http.js';
import { createNamespaceWire, listNamespacesWire, loadNamespaceWire, updateNamespacePropertiesWire } from './wire.js';

export class RestNamespaces {
  constructor(
    private readonly http: RestHttp,
    private readonly config: RestConfig,
    /** Names the server in unsupported-endpoint errors. */
    private readonly server: string,
  ) {}

  /** `/namespaces/{ns}` with levels joined by the server's separator, then URL-encoded (0x1F → %1F). */
  path(namespace: readonly string[]): string {
    if (namespace.length === 0) throw new InvalidInputError('A namespace needs at least one level', { context: { namespace: '' } });
    return `/namespaces/${encodeURIComponent(namespace.join(this.config.namespaceSeparator))}`;
  }

  async list(parent?: readonly string[]): Promise<string[][]> {
    requireEndpoint(this.config, ENDPOINTS.listNamespaces, this.server);
    const out: string[][] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.http.request({
        method: 'GET',
        path: '/namespaces',
        query: {
          parent: parent === undefined || parent.length === 0 ? undefined : parent.join(this.config.namespaceSeparator),
          pageToken,
        },
        response: listNamespacesWire,
        operation: 'read',
        notFound: 'namespace',
        context: { namespace: parent?.join('.') },
      });
      out.push(...(page?.namespaces ?? []));
      pageToken = page?.['next-page-token'] ?? undefined;
    } while (pageToken !== undefined && pageToken !== '');
    return out;
  }

  async create(namespace: readonly string[], properties: Readonly<Record<string, string>> = {}): Promise<void> {
    requireEndpoint(this.config, ENDPOINTS.createNamespace, this.server);
    await this.http.request({
      method: 'POST',
      path: '/namespaces',
      body: { namespace: [...namespace], properties: { ...properties } },
      response: createNamespaceWire,
      operation: 'create',
      context: { namespace: namespace.join('.') },
    });
  }

  async exists(namespace: readonly string[]): Promise<boolean> {
    const context = { namespace: namespace.join('.') };
    if (supportsEndpoint(this.config, ENDPOINTS.namespaceExists)) {
      return this.http.exists({ path: this.path(namespace), operation: 'read', context });
    }
    return this.loadProperties(namespace).then(
      () => true,
      (error: unknown) => (error instanceof NoSuchNamespaceError ? false : Promise.reject(error)),
    );
  }

  async drop(namespace: readonly string[]): Promise<void> {
    requireEndpoint(this.config, ENDPOINTS.dropNamespace, this.server);
    await this.http.request({
      method: 'DELETE',
      path: this.path(namespace),
      operation: 'drop',
      notFound: 'namespace',
      context: { namespace: namespace.join('.') },
    });
  }

  async loadProperties(namespace: readonly string[]): Promise<Record<string, string>> {
    requireEndpoint(this.config, ENDPOINTS.loadNamespace, this.server);
    const body = await this.http.request({
      method: 'GET',
      path: this.path(namespace),
      response: loadNamespaceWire,
      operation: 'read',
      notFound: 'namespace',
      context: { namespace: namespace.join('.') },
    });
    return { ...(body?.properties ?? {}) };
  }

  async updateProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    const both = removals.filter((key) => Object.hasOwn(updates, key));
    if (both.length > 0) {
      throw new InvalidInputError(`Namespace ${namespace.join('.')}: properties both removed and set: ${both.join(', ')}`, {
        context: { namespace: namespace.join('.'), keys: both.join(',') },
      });
    }
    requireEndpoint(this.config, ENDPOINTS.updateNamespaceProperties, this.server);
    await this.http.request({
      method: 'POST',
      path: `${this.path(namespace)}/properties`,
      body: { removals: [...removals], updates: { ...updates } },
      response: updateNamespacePropertiesWire,
      operation: 'update',
      notFound: 'namespace',
      context: { namespace: namespace.join('.') },
    });
  }
}
