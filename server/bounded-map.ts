/**
 * Sets `key` to `value` as the map's newest entry, first dropping its oldest (a Map keeps
 * insertion order) when it holds `capacity` entries already: the bound of every in-process cache
 * here (API keys, webhook destinations, pass-verifying keys, SQLite's prepared statements).
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
  map.delete(key);
  if (map.size >= capacity) map.delete(map.keys().next().value!);
  map.set(key, value);
}
