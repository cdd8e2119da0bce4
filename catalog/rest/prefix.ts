/**
 * The `{prefix}` of `/v1/{prefix}/…` (ICEBERG.md §7.2). Servers send it ready for the path, as the
 * Java client uses it: Nessie answers `main%7Cwarehouse`, which encoding again would turn into
 * `main%257C…`. So escapes already there are kept, and only characters a path segment cannot
 * hold (a space, `|`, a `%` that starts no escape) are encoded.
 */

/** Characters allowed in a path segment (RFC 3986 pchar) besides `%XX` escapes. */
const NEEDS_ENCODING = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu;

/** `/seg/seg` for the prefix (slashes around it dropped), or '' when there is none. */
export function prefixPath(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  return '/' + trimmed.split('/').map((segment) => segment.replace(NEEDS_ENCODING, encodeURIComponent)).join('/');
}
