/**
 * Image references (`[registry/]repo[:tag][@digest]`) as Docker reads them, for "is it pinned"
 * checks in the Dockerfile and compose tests.
 */

export interface ImageRef {
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
}

export function parseImageRef(reference: string): ImageRef {
  const [nameAndTag = '', digest] = reference.split('@', 2);
  // A ':' after the last '/' is the tag; one before it belongs to a registry host:port.
  const slash = nameAndTag.lastIndexOf('/');
  const colon = nameAndTag.lastIndexOf(':');
  if (colon > slash) {
    return { repository: nameAndTag.slice(0, colon), tag: nameAndTag.slice(colon + 1), digest };
  }
  return { repository: nameAndTag, tag: undefined, digest };
}

/** Pinned: a digest, or an explicit tag that is not `latest` (and not a variable left unresolved). */
export function isPinned(reference: string): boolean {
  const ref = parseImageRef(reference);
  if (ref.repository === '' || reference.includes('$')) return false;
  if (ref.digest !== undefined) return /^sha256:[0-9a-f]{64}$/.test(ref.digest);
  return ref.tag !== undefined && ref.tag !== '' && ref.tag !== 'latest';
}
