/** A pipeline graph (or any part of it) without its `origin` fields, to compare the IR two front ends built. */
export function withoutOrigins(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOrigins);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'origin').map(([key, child]) => [key, withoutOrigins(child)]));
}
