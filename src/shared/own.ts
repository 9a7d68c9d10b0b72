/**
 * Sets `key` as an own property even when it is `__proto__`: plain assignment would change the
 * object's prototype instead, losing the value (names come from catalogs, imports, MCP servers
 * and tool results, any of which may use it).
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A value by own property only: `constructor` or `toString` must not answer from Object.prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
