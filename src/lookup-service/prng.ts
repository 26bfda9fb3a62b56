import { createHash } from 'node:crypto';

/** A seeded pseudo-random source (mulberry32) so the data set is identical on every machine. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('Cannot pick from an empty list');
    return item;
  }

  /** Picks a value with probability proportional to its weight. */
  weighted<T>(choice: WeightedChoice<T>): T {
    return choice.at(this.next());
  }
}

/** Values with relative weights, cumulated once so that each pick is cheap. */
export class WeightedChoice<T> {
  private readonly values: readonly T[];
  private readonly thresholds: readonly number[];

  constructor(choices: readonly (readonly [T, number])[]) {
    if (choices.length === 0 || choices.some(([, weight]) => !(weight > 0))) {
      throw new RangeError('A weighted choice needs at least one value, each with a positive weight');
    }
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let cumulated = 0;
    this.values = choices.map(([value]) => value);
    this.thresholds = choices.map(([, weight]) => {
      cumulated += weight;
      return cumulated / total;
    });
  }

  /** The value whose share of [0, 1) contains the fraction. */
  at(fraction: number): T {
    const index = this.thresholds.findIndex((threshold) => fraction < threshold);
    const value = this.values[index === -1 ? this.values.length - 1 : index];
    if (value === undefined) throw new RangeError('Weighted choice is empty');
    return value;
  }
}

/**
 * One random stream per name (a field of the generated companies, in one
 * jurisdiction), each seeded from the data set's seed and its name: a field
 * added later draws from a stream of its own, so every other field keeps the
 * values it had, whatever the new one draws.
 */
export class RandomStreams {
  readonly #streams = new Map<string, SeededRandom>();

  constructor(private readonly seed: number) {}

  /** The stream named `name`, the same one on every call. */
  for(name: string): SeededRandom {
    let stream = this.#streams.get(name);
    if (stream === undefined) {
      stream = new SeededRandom(createHash('sha256').update(`${this.seed}/${name}`).digest().readUInt32LE(0));
      this.#streams.set(name, stream);
    }
    return stream;
  }
}
