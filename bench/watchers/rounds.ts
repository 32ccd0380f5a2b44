/**
 * Rounds that a loaded machine cannot flip (issue 33): every subject runs once per round, in turn
 * (A, B, C, A, B, C, ...), so load that comes and goes lands on all of them; a figure is reported
 * as its mean over the rounds with a 95% bootstrap interval, and a ratio of two subjects' figures
 * with a paired one (the same rounds resampled for both). Pure, seeded: the same figures give the
 * same intervals.
 */

/** A figure's mean over the rounds and its 95% interval. */
export interface Interval {
  value: number;
  low: number;
  high: number;
}

/** Bootstrap resamples per interval. */
const RESAMPLES = 2000;

/** Runs `run(subject, round)` for every subject in every round, subjects in turn within a round. */
export async function interleaveRounds<S>(
  subjects: readonly S[],
  rounds: number,
  run: (subject: S, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) for (const subject of subjects) await run(subject, round);
}

/** A seeded uniform generator on [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The 2.5th and 97.5th percentiles of `statistic` over resampled rounds (indices drawn with replacement). */
function bootstrap(rounds: number, statistic: (indices: number[]) => number, seed: number): [number, number] {
  const random = seededRandom(seed);
  const values: number[] = [];
  for (let i = 0; i < RESAMPLES; i++) {
    const indices = Array.from({ length: rounds }, () => Math.floor(random() * rounds));
    const value = statistic(indices);
    if (Number.isFinite(value)) values.push(value);
  }
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
  return [at(0.025), at(0.975)];
}

/** The mean of `values` (one per round) with its 95% bootstrap interval. */
export function meanInterval(values: number[], seed = 1): Interval {
  if (values.length === 0) return { value: NaN, low: NaN, high: NaN };
  const [low, high] = bootstrap(values.length, (indices) => mean(indices.map((i) => values[i]!)), seed);
  return { value: mean(values), low, high };
}

/**
 * mean(`numerators`) ÷ mean(`denominators`), the two measured in the same rounds (index i of both
 * is round i), with its 95% paired bootstrap interval.
 */
export function ratioInterval(numerators: number[], denominators: number[], seed = 1): Interval {
  if (numerators.length !== denominators.length)
    throw new Error(`ratioInterval: ${numerators.length} numerators for ${denominators.length} denominators`);
  if (numerators.length === 0) return { value: NaN, low: NaN, high: NaN };
  const ratio = (indices: number[]) =>
    mean(indices.map((i) => numerators[i]!)) / mean(indices.map((i) => denominators[i]!));
  const [low, high] = bootstrap(numerators.length, ratio, seed);
  return { value: ratio(numerators.map((_v, i) => i)), low, high };
}
