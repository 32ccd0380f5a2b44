/** Usage of model call attempts that failed after the server reported it: counted in the run's usage, once per attempt. */
import { log, setHandler } from "@temporalio/workflow";
import { recordUsage, type RunState } from "../core/run-state.js";
import { failedAttemptSignal } from "./definitions.js";

/** Counts the usage the `model.call` activity reports for its failed attempts; `onChange` refreshes what observers see. */
export function countFailedAttempts(run: RunState, onChange: () => void): void {
  const counted = new Set<string>();
  setHandler(failedAttemptSignal, ({ trip, attempt, usage }) => {
    const key = `${trip}/${attempt}`;
    if (counted.has(key)) return;
    counted.add(key);
    recordUsage(run, usage, true);
    log.info("usage of a failed model call attempt counted", { trip, attempt, totalTokens: usage.totalTokens });
    onChange();
  });
}
