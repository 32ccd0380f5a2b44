/**
 * The Temporal floor of a trip for `npm run bench:profile`: a bare workflow of the same shape as
 * the benchmark's conversation (a model call, then a tool call, per trip) whose local activities
 * return at once. What a trip of ours costs beyond it is ours to cut.
 */
import { proxyLocalActivities } from "@temporalio/workflow";

/** The bare workflow's activities: a "model" that asks for the tool on every trip but the last, and a "tool". */
export interface BareActivities {
  bareModel(trip: number, trips: number): Promise<{ toolCall: boolean }>;
  bareTool(trip: number): Promise<number>;
}

/** A workflow of `trips` trips over these activities: the model's, then the tool's when the model asks for it. */
export function tripsOver({ bareModel, bareTool }: BareActivities): (trips: number) => Promise<number> {
  return async (trips) => {
    let recorded = 0;
    for (let trip = 1; trip <= trips; trip++) {
      if ((await bareModel(trip, trips)).toolCall) recorded += await bareTool(trip);
    }
    return recorded;
  };
}

export const bareTrips = tripsOver(proxyLocalActivities<BareActivities>({ startToCloseTimeout: "10 seconds" }));
