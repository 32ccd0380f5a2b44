/**
 * A benchmark goal and how it is judged. A goal on a figure that varies from round to round is
 * judged on the figure's whole 95% interval: met when all of it meets the bound, not met when none
 * of it does, undecided when the bound lies inside it or there were too few rounds to tell. A goal
 * on an exact figure (a count, a history's size) is met or not.
 */
import { formatInterval, type Interval } from "./ratio-interval.js";

/** How a goal came out; "not measured" when its figures were not taken (e.g. under --quick). */
export type GoalStatus = "met" | "not met" | "undecided" | "not measured";

/** One goal: what it asks, the figure measured, how it came out, and the interval it was judged on, if any. */
export interface Goal {
  goal: string;
  figure: string;
  status: GoalStatus;
  interval?: Interval;
}

/** Fewer rounds than this decide nothing: a bootstrap over 2–4 rounds gives intervals too narrow to trust. */
export const MIN_ROUNDS_TO_DECIDE = 5;

/** The bound a figure must meet: at most or at least `value`. */
export type Bound = { atMost: number } | { atLeast: number };

/** The status of a goal on an interval: decided only when the whole interval is on one side of the bound. */
export function judgeInterval(interval: Interval, bound: Bound): GoalStatus {
  if (interval.rounds < MIN_ROUNDS_TO_DECIDE) return "undecided";
  const [meets, fails] =
    "atMost" in bound
      ? [interval.high <= bound.atMost, interval.low > bound.atMost]
      : [interval.low >= bound.atLeast, interval.high < bound.atLeast];
  return meets ? "met" : fails ? "not met" : "undecided";
}

/**
 * The status of a goal that must hold against several intervals at once (e.g. "≤ the better peer's"
 * is "≤ each peer's"): met when met on all, not met when not met on any, else undecided.
 */
export function judgeAll(intervals: readonly Interval[], bound: Bound): GoalStatus {
  if (intervals.length === 0) return "not measured";
  const statuses = intervals.map((interval) => judgeInterval(interval, bound));
  if (statuses.includes("not met")) return "not met";
  return statuses.every((s) => s === "met") ? "met" : "undecided";
}

/** The status of a goal on an exact figure: `null` when it was not measured. */
export const judgeExact = (met: boolean | null): GoalStatus =>
  met === null ? "not measured" : met ? "met" : "not met";

/** "0.76× (0.70–0.83) over 30 rounds": a ratio and its 95% interval, for a goal's figure. */
export const formatRatio = (interval: Interval): string =>
  `${formatInterval(interval, "×")} over ${interval.rounds} rounds`;
