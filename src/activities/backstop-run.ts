import { Context, log } from "@temporalio/activity";
import type { BackstopRunInput, BackstopRunOutput } from "../core/activity-types.js";
import { RetryableToolError } from "../errors.js";
import type { Message, ToolCallRecord } from "../core/types.js";
import { lookupAgent, type AgentRegistry } from "./registry.js";
import { toFailure } from "../core/typed-failures.js";
import { contextFor, readRunPart, runRefOf } from "../run-reads/index.js";
import { defined } from "../core/defined.js";

/**
 * The `backstop.run` activity: a backstop's side effect. The workflow schedules it at most once per
 * run; a worker crash retries it with the same `idempotencyKey`. A thrown error is returned, not
 * retried (except `RetryableToolError`), so it is logged and skipped and never fails the run.
 */
export function createBackstopRun(registry: AgentRegistry) {
  return async function backstopRun(input: BackstopRunInput): Promise<BackstopRunOutput> {
    const agent = lookupAgent(registry, input.agent);
    const backstop = agent.options.backstops?.find((b) => b.name === input.name);
    const state = structuredClone(input.state);
    if (!backstop) return { state, error: `the agent has no backstop named "${input.name}"` };
    const context = Context.current();
    const ref = runRefOf(context);
    const [messages, toolCalls, runContext] = await Promise.all([
      readRunPart<Message>(context.client, ref, "messages", 0, input.counts.messages),
      readRunPart<ToolCallRecord>(context.client, ref, "toolCalls", 0, input.counts.toolCalls),
      contextFor(context, input.hasContext),
    ]);
    try {
      const returned = await backstop.run({
        ...input.turn,
        messages,
        toolCalls,
        ...defined({ context: runContext }),
        agent: agent.name,
        state,
        idempotencyKey: `${ref.workflowId}/backstop/${input.name}`,
      });
      const prompt = returned && typeof returned === "object" ? returned.prompt : undefined;
      if (prompt !== undefined && typeof prompt !== "string")
        return { state: toJson(state), error: "run must return { prompt?: string }" };
      return { ...(prompt ? { prompt } : {}), state: toJson(state) };
    } catch (error) {
      if (RetryableToolError.isInstance(error)) throw toFailure(error, { nonRetryable: false });
      const message = error instanceof Error ? error.message : String(error);
      log.warn("backstop run threw; ignored, the run goes on", { backstop: input.name, error: message });
      return { state: toJson(state), error: message };
    }
  };
}

function toJson(state: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
}
