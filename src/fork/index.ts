/** Forking a recorded run: `ai.fork(workflowId, { atTrip })`. */
export { forkRun, type ForkOptions } from "./fork-run.js";
