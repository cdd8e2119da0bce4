/**
 * The table flow of the catalogs that write their own metadata files and keep only a pointer to
 * the current one (SQL, Glue). A commit loads the pointer and its metadata, checks the
 * requirements, applies the updates, writes the next metadata file, then asks the backend to
 * swap the pointer; the new file is deleted only when the backend surely refused, and kept when
 * the outcome is unknown (CommitStateUnknownError). Backends supply the pointer operations.
 */
import { CommitConflictError, CommitStateUnknownError, type ThundError } from '../src/errors.js';
import type { FileIO } from '../src/iceberg/file-io.js';
import { applyUpdates, tableMetadataFromUpdates } from '../src/iceberg/metadata-builder.js';
import { readTableMetadata } from '../src/iceberg/metadata-json.js';
import { validateRequirements, type TableRequirement } from '../src/iceberg/requirements.js';
import type { TableMetadata } from '../src/iceberg/table-metadata.js';
import type { TableUpdate } from '../src/iceberg/updates.js';
import { formatIdentifier, type Catalog, type CreateTableRequest, type LoadedTable, type TableIdentifier } from './catalog.js';
import { alreadyExists, createdConcurrently, messageOf, noSuchTable } from './catalog-errors.js';
import { encodeMetadata, newMetadataFileLocation, parseMetadataVersion } from './metadata-files.js';
import { executePurge, planPurgeUnlessMissing } from './purge-table.js';

/** A table's current metadata location and what the backend needs to swap it (e.g. Glue's VersionId). */
export interface TablePointer<Token> {
  readonly metadataLocation: string;
  readonly token: Token;
}

/**
 * What a pointer swap did: `done`, or `refused` (surely not applied, so nothing references the
 * new file). A hook that cannot tell throws, and the new file stays.
 */
export type SwapOutcome = { readonly kind: 'done' } | { readonly kind: 'refused'; readonly error: ThundError };

/** What inserting a new entry did; `exists` when the name is taken. */
export type InsertOutcome = SwapOutcome | { readonly kind: 'exists'; readonly cause: unknown };

/** `changed`: the entry now points elsewhere than the pointer the caller expected. */
export type RemoveOutcome = 'removed' | 'missing' | 'changed';

const MAX_PURGE_ATTEMPTS = 5;

export abstract class PointerSwapCatalog<Token> implements Catalog {
  abstract readonly name: string;

  protected constructor(protected readonly io: FileIO) {}

  abstract listNamespaces(parent?: readonly string[]): Promise<string[][]>;
  abstract createNamespace(namespace: readonly string[], properties?: Readonly<Record<string, string>>): Promise<void>;
  abstract namespaceExists(namespace: readonly string[]): Promise<boolean>;
  abstract dropNamespace(namespace: readonly string[]): Promise<void>;
  abstract loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>>;
  abstract updateNamespaceProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void>;
  abstract listTables(namespace: readonly string[]): Promise<TableIdentifier[]>;
  abstract tableExists(identifier: TableIdentifier): Promise<boolean>;
  abstract stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata>;
  abstract renameTable(from: TableIdentifier, to: TableIdentifier): Promise<void>;
  abstract close(): Promise<void>;

  /** The table's pointer; undefined when there is no such table. */
  protected abstract readPointer(identifier: TableIdentifier): Promise<TablePointer<Token> | undefined>;
  /** Compare-and-swap from `base` to `nextLocation`. */
  protected abstract swapPointer(
    identifier: TableIdentifier,
    base: TablePointer<Token>,
    nextLocation: string,
    next: TableMetadata,
  ): Promise<SwapOutcome>;
  /** A new entry pointing at `metadataLocation`. */
  protected abstract insertPointer(identifier: TableIdentifier, metadataLocation: string, metadata: TableMetadata): Promise<InsertOutcome>;
  /** Removes the entry; when `expected` is given, only while it still points there. */
  protected abstract removePointer(identifier: TableIdentifier, expected: TablePointer<Token> | undefined): Promise<RemoveOutcome>;
  /** Fails when a table of that name cannot be created here (invalid name, missing namespace). */
  protected abstract checkCreatable(identifier: TableIdentifier): Promise<void>;

  async loadTable(identifier: TableIdentifier): Promise<LoadedTable> {
    const pointer = await this.readPointer(identifier);
    if (pointer === undefined) throw noSuchTable(identifier);
    return this.loaded(identifier, pointer.metadataLocation, await this.readMetadata(pointer.metadataLocation));
  }

  async createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable> {
    const metadata = await this.stageCreateTable(identifier, request);
    return this.createWithMetadata(identifier, metadata, (cause) => alreadyExists(identifier, cause));
  }

  async commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    const pointer = await this.readPointer(identifier);
    if (pointer === undefined) {
      if (requirements.some((r) => r.type === 'assert-create')) return this.commitCreate(identifier, requirements, updates);
      throw noSuchTable(identifier);
    }
    const baseLocation = pointer.metadataLocation;
    const base = await this.readMetadata(baseLocation);
    validateRequirements(requirements, base);
    if (updates.length === 0) return this.loaded(identifier, baseLocation, base);

    const next = applyUpdates(base, updates, { previousMetadataLocation: baseLocation });
    const nextLocation = newMetadataFileLocation(next, parseMetadataVersion(baseLocation) + 1);
    await this.io.writeNew(nextLocation, encodeMetadata(next));
    let outcome: SwapOutcome;
    try {
      outcome = await this.swapPointer(identifier, pointer, nextLocation, next);
    } catch (error) {
      if (error instanceof CommitStateUnknownError) throw error;
      throw new CommitStateUnknownError(`Commit of ${formatIdentifier(identifier)} has an unknown outcome: ${messageOf(error)}`, {
        cause: error,
        context: { table: formatIdentifier(identifier), metadataLocation: nextLocation },
      });
    }
    if (outcome.kind === 'refused') {
      await this.io.delete(nextLocation).catch(() => undefined);
      throw outcome.error;
    }
    return this.loaded(identifier, nextLocation, next);
  }

  /** Points a new entry at an existing metadata file, read and validated first; the file is never written or deleted. */
  async registerTable(identifier: TableIdentifier, metadataLocation: string): Promise<LoadedTable> {
    await this.checkCreatable(identifier);
    if (await this.tableExists(identifier)) throw alreadyExists(identifier);
    const metadata = await this.readMetadata(metadataLocation);
    const outcome = await this.insertPointer(identifier, metadataLocation, metadata);
    if (outcome.kind === 'exists') throw alreadyExists(identifier, outcome.cause);
    if (outcome.kind === 'refused') throw outcome.error;
    return this.loaded(identifier, metadataLocation, metadata);
  }

  /**
   * Removes the entry. With `purge`, the files the last metadata references are listed first
   * and deleted once the entry is gone; a backend that can remove conditionally makes a commit
   * landing in between show up as `changed`, and the files are listed again.
   */
  async dropTable(identifier: TableIdentifier, purge = false): Promise<void> {
    if (!purge) {
      if ((await this.removePointer(identifier, undefined)) === 'missing') throw noSuchTable(identifier);
      return;
    }
    for (let attempt = 1; attempt <= MAX_PURGE_ATTEMPTS; attempt += 1) {
      const pointer = await this.readPointer(identifier);
      if (pointer === undefined) throw noSuchTable(identifier);
      const plan = await planPurgeUnlessMissing(this.io, pointer.metadataLocation);
      const outcome = await this.removePointer(identifier, pointer);
      if (outcome === 'missing') throw noSuchTable(identifier);
      if (outcome === 'removed') {
        if (plan !== undefined) await executePurge(this.io, plan, formatIdentifier(identifier));
        return;
      }
    }
    throw new CommitConflictError(`Cannot drop ${formatIdentifier(identifier)}: it kept changing while its files were being listed`, {
      context: { table: formatIdentifier(identifier) },
    });
  }

  protected async readMetadata(location: string): Promise<TableMetadata> {
    return readTableMetadata(await this.io.read(location), location);
  }

  /** A table created by its first commit (stage-create, then `assert-create` + create updates). */
  private async commitCreate(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    validateRequirements(requirements, undefined);
    await this.checkCreatable(identifier);
    return this.createWithMetadata(identifier, tableMetadataFromUpdates(updates), (cause) => createdConcurrently(identifier, cause));
  }

  /** Writes metadata version 0 and inserts the entry; a sure refusal removes the file again, an unknown outcome keeps it. */
  private async createWithMetadata(
    identifier: TableIdentifier,
    metadata: TableMetadata,
    onExists: (cause: unknown) => ThundError,
  ): Promise<LoadedTable> {
    const metadataLocation = newMetadataFileLocation(metadata, 0);
    await this.io.writeNew(metadataLocation, encodeMetadata(metadata));
    const outcome = await this.insertPointer(identifier, metadataLocation, metadata);
    if (outcome.kind !== 'done') {
      await this.io.delete(metadataLocation).catch(() => undefined);
      throw outcome.kind === 'exists' ? onExists(outcome.cause) : outcome.error;
    }
    return this.loaded(identifier, metadataLocation, metadata);
  }

  private loaded(identifier: TableIdentifier, metadataLocation: string, metadata: TableMetadata): LoadedTable {
    return { identifier, metadataLocation, metadata, io: this.io };
  }
}
