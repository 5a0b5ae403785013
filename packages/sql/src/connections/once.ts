/** @module Values made once per key and kept: prepared statements, the state shared by every executor on one handle. */

/** What {@link madeOnce} keeps its values in: a `Map` or a `WeakMap`. */
interface Keeps<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value `map` keeps for `key`, made by `make` (and kept) the first time it is asked for. */
export function madeOnce<K, V>(map: Keeps<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
