/**
 * What the REST catalog learned about each table from its load responses: a per-table bearer
 * token (`config.token`) and the FileIO built from vended credentials. Tokens live only here.
 */
import type { FileIO } from '../../src/iceberg/file-io.js';
import type { TableIdentifier } from '../catalog.js';
import { grantsAccess, TABLE_TOKEN, type TableStorageAccess } from './vended-credentials.js';
import type { VendedFileIO } from './vended-file-io.js';

interface TableSession {
  readonly token: string | undefined;
  readonly io: VendedFileIO | undefined;
}

export class TableSessions {
  private readonly sessions = new Map<string, TableSession>();
  /** FileIOs of dropped or renamed tables, still closed with the catalog (callers may hold them). */
  private readonly retired: VendedFileIO[] = [];

  /** Without `createIo`, only tokens are kept (no FileIO can be built for vended keys). */
  constructor(private readonly createIo: ((identifier: TableIdentifier, access: TableStorageAccess) => VendedFileIO) | undefined) {}

  tokenFor(identifier: TableIdentifier): string | undefined {
    return this.sessions.get(key(identifier))?.token;
  }

  /** The table's vended FileIO, if a response granted storage access. */
  ioFor(identifier: TableIdentifier): VendedFileIO | undefined {
    return this.sessions.get(key(identifier))?.io;
  }

  /** Remembers a load/create/register response; returns the FileIO the table should use. */
  record(identifier: TableIdentifier, access: TableStorageAccess, fallback: FileIO): FileIO {
    const previous = this.sessions.get(key(identifier));
    const token = access.config[TABLE_TOKEN];
    let io = previous?.io;
    if (io !== undefined) io.update(access);
    else if (grantsAccess(access) && this.createIo !== undefined) io = this.createIo(identifier, access);
    this.sessions.set(key(identifier), { token: token === '' ? undefined : token, io });
    return io ?? fallback;
  }

  forget(identifier: TableIdentifier): void {
    const session = this.sessions.get(key(identifier));
    if (session?.io !== undefined) this.retired.push(session.io);
    this.sessions.delete(key(identifier));
  }

  close(): void {
    for (const session of this.sessions.values()) session.io?.close();
    for (const io of this.retired) io.close();
    this.sessions.clear();
    this.retired.length = 0;
  }
}

function key(identifier: TableIdentifier): string {
  return JSON.stringify([identifier.namespace, identifier.name]);
}
