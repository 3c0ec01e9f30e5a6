// A small least-recently-used map: a Map keeps insertion order, so a hit is moved to the end
// and the first key is the one to evict.
export class Lru<K, V> {
  readonly #map = new Map<K, V>();
  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#map.size;
  }
  get(key: K): V | undefined {
    const v = this.#map.get(key);
    if (v === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, v);
    return v;
  }
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K);
  }
  delete(key: K): void {
    this.#map.delete(key);
  }
  clear(): void {
    this.#map.clear();
  }
}
