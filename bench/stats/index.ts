/** The benchmarks' statistics: rounds interleaved across subjects, bootstrap intervals over them, and goals judged on whole intervals. */
export { interleaveRounds } from "./interleave-rounds.js";
export {
  bootstrapInterval,
  formatInterval,
  mean,
  meanInterval,
  meanRatioInterval,
  median,
  medianInterval,
  ratioInterval,
  type BootstrapOptions,
  type Interval,
} from "./ratio-interval.js";
export {
  formatRatio,
  judgeAll,
  judgeExact,
  judgeInterval,
  MIN_ROUNDS_TO_DECIDE,
  type Bound,
  type Goal,
  type GoalStatus,
} from "./goal.js";
