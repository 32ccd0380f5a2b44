/**
 * Long runs: history bytes per trip at 10, 100 and 300 trips (one tool call on each trip but the
 * last). Model calls read the conversation through a query instead of carrying it in their input,
 * so bytes per trip should stay flat as the conversation grows. Summed over the continue-as-new
 * chain if the run continued as new.
 */
import type { WorkflowHandleWithFirstExecutionRunId } from "@temporalio/client";
import { chainHistorySize, round, withBenchWorker, type Bench } from "./lib.js";
import { benchAgent, FINAL_ANSWER, inputFor } from "./scenario.js";

export interface LongRunFigures {
  trips: number;
  events: number;
  bytes: number;
  runsInChain: number;
  eventsPerTrip: number;
  bytesPerTrip: number;
  seconds: number;
}

export async function benchLongRuns(bench: Bench, baseURL: string): Promise<LongRunFigures[]> {
  const lengths = bench.quick ? [10, 30] : [10, 100, 300];
  const agent = benchAgent(baseURL, "bench-long", Math.max(...lengths));
  return withBenchWorker(bench, [agent], (taskQueue) =>
    // One run per length, side by side: history sizes do not depend on timing.
    Promise.all(
      lengths.map(async (trips) => {
        const started = performance.now();
        const handle = await agent.start(inputFor(trips), { client: bench.client, taskQueue });
        const result = await handle.result();
        if (result.trips !== trips || result.reply !== FINAL_ANSWER)
          throw new Error(`bench: a ${trips}-trip run made ${result.trips} trips (${result.stopReason})`);
        const seconds = round((performance.now() - started) / 1000);
        const size = await chainHistorySize(
          bench.client,
          handle.workflowId,
          (handle.workflow as WorkflowHandleWithFirstExecutionRunId).firstExecutionRunId,
        );
        return {
          trips,
          ...size,
          runsInChain: size.runs,
          eventsPerTrip: round(size.events / trips),
          bytesPerTrip: round(size.bytes / trips, 0),
          seconds,
        };
      }),
    ).then((rows) => rows.map(({ runs: _runs, ...row }) => row)),
  );
}
