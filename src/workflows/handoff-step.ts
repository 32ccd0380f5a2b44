/**
 * Handoffs between trips: a `transfer_to_<name>` call makes the run continue with that agent (its
 * instructions, tools, model and contract options), the conversation kept or trimmed by the
 * handoff's `inputFilter`. Workflow-safe.
 */
import { log } from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import { initialContractState } from "../core/contract-state.js";
import type { ToolCallRecord } from "../core/types.js";
import { activitiesFor, local, unwrapFailure } from "./activity-proxies.js";
import { beforeFirstTrip } from "./contract-steps.js";
import type { PendingHandoff, FinishedCall, TripLoop } from "./trip-context.js";
import { defined } from "../core/defined.js";

/** The batch's records, and its handoff: the first handoff call wins; any other in the same answer is refused, saying why. */
export function oneHandoffPerAnswer(outcomes: FinishedCall[]): { records: ToolCallRecord[]; handoff?: PendingHandoff } {
  const handoff = outcomes.find((o) => o.handoff)?.handoff;
  const records = outcomes.map(({ record, handoff: other }) =>
    other && other !== handoff
      ? {
          ...record,
          status: "refused" as const,
          output: undefined,
          reason: `Only one handoff per answer: the run goes to ${handoff!.request.to}.`,
        }
      : record,
  );
  return { records, ...defined({ handoff }) };
}

/** Switches the run to the handoff's agent: its spec and activities, a fresh contract state, and its before-phase checks. */
export async function handOff(loop: TripLoop, { callId, request }: PendingHandoff, trip: number): Promise<void> {
  const from = loop.spec.name;
  const next = await unwrapFailure(() => local[ACTIVITY.describe](request.to));
  const { model, tools, localTools } = activitiesFor(next);
  Object.assign(loop, { spec: next, model, tools, localTools });
  Object.assign(loop.ctx, { spec: next, tools, contract: initialContractState() });
  loop.run.agent = next.name;
  if (request.messages) {
    loop.run.messages = [...request.messages];
    loop.view = (loop.view ?? 0) + 1;
  }
  loop.run.trace.push({ trip, type: "handoff", from, to: next.name, callId });
  log.info("handoff", { from, to: next.name, trip, filtered: request.messages !== undefined });
  await beforeFirstTrip(loop.ctx);
}
