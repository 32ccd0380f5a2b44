/**
 * Bare workflows for `npm run bench:server-settings`: what each dev server setting costs the
 * server's own paths, with no library in the way.
 */
import { proxyActivities, sleep } from "@temporalio/workflow";
import { tripsOver, type BareActivities } from "./bare-trips-workflow.js";

/** `trips` trips of a model activity then a tool activity (the last trip has no tool call): the transfer queue's path. */
export const activityTrips = tripsOver(proxyActivities<BareActivities>({ startToCloseTimeout: "10 seconds" }));

/** `timers` timers of 1 ms, one after the other: the timer queue's path (retry backoffs, approval timeouts). */
export async function shortTimers(timers: number): Promise<number> {
  for (let i = 0; i < timers; i++) await sleep(1);
  return timers;
}
