/** A small seeded PRNG (mulberry32): `--seed` makes the soak's mix and fault schedule reproducible. */
export class Prng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of `weights`' keys, with probability proportional to its weight. */
  pick<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    let x = this.next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, weight] of entries) if ((x -= weight) < 0) return key;
    return entries.at(-1)![0];
  }

  /** A new generator seeded from this one (a stream of its own, so one part's draws do not shift another's). */
  fork(): Prng {
    return new Prng(Math.floor(this.next() * 2 ** 32));
  }
}
