/** Publishes a run's events on its workflow stream. Workflow-side publishing adds no history events. */
import { WorkflowStream, type WorkflowStreamState } from "@temporalio/workflow-streams/workflow";
import { setHandler } from "@temporalio/workflow";
import { RUN_EVENTS_TOPIC, type RunEvent } from "../core/run-events.js";
import type { RunState } from "../core/run-state.js";
import { streamTailQuery } from "./definitions.js";

/** The run's event stream: explicit events, plus every trace event as it is recorded. */
export class RunEventPublisher {
  readonly stream: WorkflowStream;
  readonly #topic;
  #traceSent = 0;

  constructor(
    private readonly run: RunState,
    state?: WorkflowStreamState,
    /** The run's agent path, root first: each event is tagged with it (a handoff changes its last entry). */
    private readonly agents?: () => string[],
  ) {
    this.stream = new WorkflowStream(state);
    this.#topic = this.stream.topic<RunEvent>(RUN_EVENTS_TOPIC);
    setHandler(streamTailQuery, (fromOffset) => {
      const { log, base_offset } = this.stream.getState();
      return {
        items: log
          .map((item, i) => ({ offset: base_offset + i, topic: item.topic, data: item.data }))
          .filter((item) => item.offset >= fromOffset && item.topic === RUN_EVENTS_TOPIC)
          .map(({ offset, data }) => ({ offset, data })),
      };
    });
  }

  /** The offset the stream's next item will have. */
  nextOffset(): number {
    const { base_offset, log } = this.stream.getState();
    return base_offset + log.length;
  }

  /** Publishes one event. */
  publish(event: RunEvent): void {
    this.syncTrace();
    this.#topic.publish(this.tagged(event));
  }

  private tagged(event: RunEvent): RunEvent {
    return this.agents ? { ...event, agents: this.agents() } : event;
  }

  /** After continue-as-new: the loaded trace was already published by the run before. */
  traceAlreadySent(count: number): void {
    this.#traceSent = count;
  }

  /** Publishes the trace events recorded since the last call. */
  syncTrace(): void {
    for (const event of this.run.trace.slice(this.#traceSent)) this.#topic.publish(this.tagged(event));
    this.#traceSent = this.run.trace.length;
  }
}
