/**
 * Carrying a run's state across continue-as-new: gzipped in the new run's input when that fits
 * one payload, else loaded by the new run in pages from the run before it (`run.load`).
 */
import { log, workflowInfo } from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import { packWithin, unpack } from "../core/packing.js";
import type { RunPart } from "../core/paging.js";
import type { RunState } from "../core/run-state.js";
import type { ActivityProxies } from "./activity-proxies.js";
import type { CarriedRun } from "./definitions.js";
import type { RunEventPublisher } from "./run-event-publisher.js";
import { defined } from "../core/defined.js";

/** Stream events kept across continue-as-new: a subscriber further behind than this resumes at the oldest kept. */
const STREAM_EVENTS_KEPT = 1000;
/** State packed smaller than this is carried in the new run's input. */
const CARRY_INLINE_BYTES = 1536 * 1024;

type CarriedState = Pick<RunState, "messages" | "toolCalls" | "trace">;

/** Before continuing as new: trims the stream, and packs the state when it fits one payload. */
export function prepareCarry(
  run: RunState,
  events: RunEventPublisher,
): { carried: Omit<CarriedRun, "stream">; packed: Uint8Array | undefined } {
  events.syncTrace();
  const { base_offset, log: items } = events.stream.getState();
  events.stream.truncate(base_offset + Math.max(0, items.length - STREAM_EVENTS_KEPT));
  const packed = packWithin(
    { messages: run.messages, toolCalls: run.toolCalls, trace: run.trace } satisfies CarriedState,
    CARRY_INLINE_BYTES,
  );
  log.info("continuing as new", {
    trips: run.trips,
    messages: run.messages.length,
    packedBytes: packed?.length,
    inline: packed !== undefined,
  });
  return {
    carried: {
      fromRunId: workflowInfo().runId,
      counts: { messages: run.messages.length, toolCalls: run.toolCalls.length, trace: run.trace.length },
      trips: run.trips,
      ...defined({ usage: run.usage, usageByAgent: run.usageByAgent, agentVersion: run.agentVersion }),
    },
    packed,
  };
}

/**
 * A continued run's state from its input, at once (before the workflow awaits anything, so
 * queries of the new run already see the whole conversation).
 */
export function unpackCarried(run: RunState, packed: Uint8Array | undefined, events: RunEventPublisher): void {
  if (!packed) return;
  const state = unpack<CarriedState>(packed);
  run.messages.push(...state.messages);
  run.toolCalls.push(...state.toolCalls);
  run.trace.push(...state.trace);
  events.traceAlreadySent(run.trace.length);
}

/** The rest of a continued run's state, when it was too large for the input: from the run before it, page by page. */
export async function loadCarried(
  run: RunState,
  from: CarriedRun,
  tools: ActivityProxies,
  events: RunEventPublisher,
): Promise<void> {
  for (const part of ["messages", "toolCalls", "trace"] as RunPart[]) {
    const items: unknown[] = run[part];
    while (items.length < from.counts[part]) {
      const page = await tools[ACTIVITY.runLoad].executeWithOptions({ summary: `load ${part} from ${items.length}` }, [
        { fromRunId: from.fromRunId, part, from: items.length },
      ]);
      items.push(...page.items.slice(0, from.counts[part] - items.length));
    }
  }
  events.traceAlreadySent(run.trace.length);
}
