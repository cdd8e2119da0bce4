/**
 * The field names of a fetched batch's checked JSON values: every top-level key, collected while
 * the byte check walks each value (json-object-check.ts). A value whose keys are, byte for byte,
 * those of the value before it (the usual case in a topic) costs one comparison and no string.
 * The engine compares the list with the columns it knows, instead of walking every value again.
 */
import { TopLevelKeyBounds } from './json-object-check.js';

export class BatchFieldNames {
  private readonly names = new Set<string>();
  /** What the next check fills in. */
  readonly keys = new TopLevelKeyBounds();
  private previousValue: Buffer | undefined;
  private readonly previousKeys = new TopLevelKeyBounds();

  /** After `keys` was filled in by a check of `value` that passed. */
  accept(value: Buffer): void {
    if (this.previousValue !== undefined && sameKeys(this.previousValue, this.previousKeys, value, this.keys)) return;
    for (let k = 0; k < this.keys.count; k++) this.names.add(value.toString('utf8', this.keys.bounds[k * 2], this.keys.bounds[k * 2 + 1]));
    copyInto(this.keys, this.previousKeys);
    this.previousValue = value;
  }

  list(): string[] {
    return [...this.names];
  }
}

function copyInto(from: TopLevelKeyBounds, to: TopLevelKeyBounds): void {
  to.reset();
  for (let k = 0; k < from.count; k++) to.add(from.bounds[k * 2] as number, from.bounds[k * 2 + 1] as number);
}

function sameKeys(a: Buffer, aKeys: TopLevelKeyBounds, b: Buffer, bKeys: TopLevelKeyBounds): boolean {
  if (aKeys.count !== bKeys.count) return false;
  for (let k = 0; k < aKeys.count * 2; k += 2) {
    const aStart = aKeys.bounds[k] as number;
    const bStart = bKeys.bounds[k] as number;
    const length = (aKeys.bounds[k + 1] as number) - aStart;
    if ((bKeys.bounds[k + 1] as number) - bStart !== length) return false;
    for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  }
  return true;
}
