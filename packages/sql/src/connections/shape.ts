/** @module How a database handle is recognised by its shape: which of its members are functions. */

/** `value` as an object whose named members may be read, or `undefined` for a primitive or `null`. */
type Members = Readonly<Record<string, unknown>>;

/**
 * True for an object whose `methods` are all functions: the first test of every handle detector
 * (a `pg` Pool has `connect` and `query`, a D1 binding `prepare` and `batch`).
 */
export function hasMethods(value: unknown, ...methods: readonly string[]): value is Members {
  if (typeof value !== 'object' || value === null) return false;
  const members = value as Members;
  return methods.every((name) => typeof members[name] === 'function');
}
