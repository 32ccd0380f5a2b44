/**
 * The soak's plan, all of it drawn from the seed: the runs' mix, the fault schedule, and the
 * generators the fault driver and the client driver draw from as they go. Pure: the same seed
 * gives the same plan (`--seed` replays it), whatever the machine.
 */
import { planFaults, planRedisFaults, type Fault } from "./faults.js";
import { Prng } from "./prng.js";
import { planMemoryUsers, planRuns, type RunRecord } from "./scenarios.js";

/** What a seed decides before the soak starts. */
export interface SoakPlan {
  records: RunRecord[];
  faults: Fault[];
  /** The fault driver's choices (which worker, which subscriber), drawn in schedule order. */
  faultRng: Prng;
  /** The client driver's choices (approve or reject, delays, disconnects). */
  driverRng: Prng;
  /** The Redis faults' schedule (empty without Redis), run beside `faults` by a driver of its own. */
  redisFaults: Fault[];
  /** That driver's generator. */
  redisFaultRng: Prng;
}

/**
 * Draws `runs` runs and the fault schedule for a window of `windowMs`; each part from a stream of
 * its own, forked from the seed in this order. The Redis faults' streams come next, so the rest of
 * a seed's plan is the same with `redis: false` (and as it was before the soak had Redis); the runs'
 * users (memory) last, so the mix and the faults are as they were before the soak had memory.
 */
export function planSoak(seed: number, runs: number, windowMs: number, options: { redis?: boolean } = {}): SoakPlan {
  const rng = new Prng(seed);
  const records = planRuns(rng.fork(), runs, windowMs);
  const faults = planFaults(rng.fork(), windowMs);
  const faultRng = rng.fork();
  const driverRng = rng.fork();
  const redisPlan = rng.fork();
  const redisFaults = options.redis === false ? [] : planRedisFaults(redisPlan, windowMs);
  const redisFaultRng = rng.fork();
  planMemoryUsers(rng.fork(), records);
  return { records, faults, faultRng, driverRng, redisFaults, redisFaultRng };
}
