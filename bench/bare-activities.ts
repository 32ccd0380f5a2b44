/** The bare workflows' activities (bench/bare-trips-workflow.ts): a "model" that asks for the tool on every trip but the last, and a "tool". */
import type { BareActivities } from "./bare-trips-workflow.js";

export const bareActivities: BareActivities = {
  bareModel: async (trip, trips) => ({ toolCall: trip < trips }),
  bareTool: async (trip) => trip,
};

/** The bare workflow's name in the throughput tables, where it stands as a library. */
export const BARE = "bare Temporal workflow";

/** What a bare workflow of `trips` trips returns: the sum of the trips whose tool ran (all but the last). */
export const bareResult = (trips: number) => (trips * (trips - 1)) / 2;
