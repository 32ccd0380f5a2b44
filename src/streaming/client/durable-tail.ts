/** Reads a run's durable events from an offset: the `run-events-tail` query over its Workflow Stream's log. */
import type { Client } from "@temporalio/client";
import { streamTailQuery, type StreamTail } from "../../workflows/definitions.js";
import type { RunEvent } from "../../core/run-events.js";
import { loadTemporalCommon, loadTemporalProto } from "../../run-reads/index.js";

/** A durable event with its offset in the run's stream. */
export type DurableEvent = RunEvent & { offset: number };

/** Decodes a stream item's data (a base64 `Payload` proto) as a run event, once the SDK modules it needs are loaded. */
export async function eventDecoder(): Promise<(data: string) => RunEvent> {
  const [{ defaultPayloadConverter }, proto] = await Promise.all([loadTemporalCommon(), loadTemporalProto()]);
  const { Payload } = proto.temporal.api.common.v1;
  return (data) => defaultPayloadConverter.fromPayload<RunEvent>(Payload.decode(Buffer.from(data, "base64")));
}

/** The durable events of the workflow's latest run from `fromOffset` (one query, answered by a worker). */
export async function readDurableTail(
  client: Client,
  workflowId: string,
  fromOffset: number,
  decode: (data: string) => RunEvent,
): Promise<DurableEvent[]> {
  const tail: StreamTail = await client.workflow.getHandle(workflowId).query(streamTailQuery, fromOffset);
  return tail.items.map(({ offset, data }) => ({ ...decode(data), offset }));
}
