/**
 * The soak's plan, all of it drawn from the seed: the runs' mix, the fault schedule, and the
 * generators the fault driver and the client driver draw from as they go. Pure: the same seed
 * gives the same plan (`--seed` replays it), whatever the machine.
 */
import { planFaults, type Fault } from "./faults.js";
import { Prng } from "./prng.js";
import { planRuns, type RunRecord } from "./scenarios.js";

/** What a seed decides before the soak starts. */
export interface SoakPlan {
  records: RunRecord[];
  faults: Fault[];
  /** The fault driver's choices (which worker, which subscriber), drawn in schedule order. */
  faultRng: Prng;
  /** The client driver's choices (approve or reject, delays, disconnects). */
  driverRng: Prng;
}

/** Draws `runs` runs and the fault schedule for a window of `windowMs`; each part from a stream of its own, forked from the seed in this order. */
export function planSoak(seed: number, runs: number, windowMs: number): SoakPlan {
  const rng = new Prng(seed);
  const records = planRuns(rng.fork(), runs, windowMs);
  const faults = planFaults(rng.fork(), windowMs);
  return { records, faults, faultRng: rng.fork(), driverRng: rng.fork() };
}
