/**
 * The agents the soak's worker processes serve (DURABLE_AGENT_AGENTS). Every side effect writes
 * one ledger row keyed by its idempotency key: the tools (as activities, as a local activity,
 * behind an approval, inside a sub-agent), the MCP server's tool (bench/soak/mcp-server.ts, keyed
 * by the call's `_meta` key) and the before backstop. Heartbeats every 2/3 s (timeouts.heartbeat
 * 2 s), so an attempt lost with a SIGKILLed worker is retried within seconds.
 *
 * The coach has memory: the stack's memory database (DURABLE_AGENT_MEMORY_URL, which the stack gives
 * every worker; exact search, no pgvector) and the soak's scripted embeddings server. Runs with a
 * user recall and store (bench/soak/scenarios.ts's MEMORY_SCENARIOS); the others have no memory.
 *
 * Environment: SOAK_LEDGER_URL (the ledger's database), SOAK_MCP_URL (the MCP server),
 * OPENAI_BASE_URL (the scripted model), SOAK_EMBEDDINGS_URL (the scripted embeddings server),
 * DURABLE_AGENT_MEMORY_URL (the memory store).
 */
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { ai, RetryableToolError, type ToolContext } from "../../src/index.js";
import { Ledger, type EffectKind } from "./ledger.js";

const ledger = new Ledger(process.env.SOAK_LEDGER_URL ?? "postgres://unset");
// The key names the worker process: the fault driver kills the worker whose answer is streaming.
const model = ai.openai("soak-model", { apiKey: `soak-worker-${process.pid}` });
const timeouts = { heartbeat: "2 seconds", model: "30 seconds", tool: "60 seconds" } as const;
const noteInput = z.object({ note: z.string().min(1) });

/** Writes the call's ledger row; a database that stays away past the deadline is a retryable failure. */
async function effect(kind: EffectKind, ctx: ToolContext, note: string) {
  try {
    const execution = await ledger.record(ctx.idempotencyKey, kind, ctx.workflowId, {
      signal: ctx.signal,
      onRetry: () => ctx.heartbeat(),
    });
    return { ok: true, note, execution };
  } catch (error) {
    throw new RetryableToolError(`ledger unreachable: ${(error as Error).message}`);
  }
}

const updatePlan = ai.tool({
  name: "update_plan",
  description: "Change the plan",
  input: noteInput,
  execute: ({ note }, ctx) => effect("tool", ctx, note),
});
const logSet = ai.tool({
  name: "log_set",
  description: "Log a set (fast)",
  input: noteInput,
  execution: "local",
  execute: ({ note }, ctx) => effect("local-tool", ctx, note),
});
const refund = ai.tool({
  name: "refund",
  description: "Refund a charge (needs approval)",
  input: noteInput,
  needsApproval: true,
  execute: ({ note }, ctx) => effect("approved-tool", ctx, note),
});
const childTool = ai.tool({
  name: "check_form",
  description: "Check the exercise form",
  input: noteInput,
  execute: ({ note }, ctx) => effect("child-tool", ctx, note),
});

/** The sub-agent, called as the tool `ask_specialist`. */
export const specialist = ai.agent({
  name: "soak-specialist",
  model,
  instructions: "You are the form specialist.",
  tools: [childTool],
  timeouts,
  maxTrips: 4,
});
/** The handoff's target. */
export const closer = ai.agent({
  name: "soak-closer",
  model,
  instructions: "You are the closer: wrap the conversation up.",
  timeouts,
  maxTrips: 3,
});

/** The agent of most scenarios: tools, a backstop, the tool-use contract, a sub-agent and a handoff. */
export const coach = ai.agent({
  name: "soak-coach",
  model,
  instructions: "You are the soak coach.",
  tools: [
    updatePlan,
    logSet,
    refund,
    specialist.asTool({ name: "ask_specialist", description: "Ask the form specialist" }),
  ],
  handoffs: [closer],
  maxTrips: 8,
  timeouts,
  actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"], maxReprompts: 1 },
  memory: ai.memory({
    store: ai.memory.postgres({ url: process.env.DURABLE_AGENT_MEMORY_URL ?? "postgres://unset" }),
    embedder: createOpenAI({ baseURL: process.env.SOAK_EMBEDDINGS_URL, apiKey: "soak" }).embeddingModel("soak-embed"),
  }),
  onToolRefusal: "retry-once-with-hint",
  backstops: [
    {
      name: "injury-capture",
      phase: "before",
      detect: (turn) => /\bhurt\b/i.test(turn.input),
      run: async ({ idempotencyKey }) => {
        await ledger.record(
          idempotencyKey,
          "backstop",
          idempotencyKey.slice(0, idempotencyKey.lastIndexOf("/backstop/")),
        );
        return { prompt: "The user reported an injury. Acknowledge it first." };
      },
    },
  ],
});

/** The agent whose one tool is the MCP server's. */
export const mcpCoach = ai.agent({
  name: "soak-mcp",
  model,
  instructions: "You book classes.",
  tools: [ai.mcp({ name: "gym", url: process.env.SOAK_MCP_URL ?? "http://127.0.0.1:1/mcp", timeout: "20 seconds" })],
  maxTrips: 4,
  timeouts,
});

/** The typed output of `soak-typed`. */
export const Plan = z.object({ exercise: z.string(), sets: z.number().int() });
/** Typed output: a repair re-prompt, then valid output (or, scripted so, OutputValidationError). */
export const typed = ai.agent({
  name: "soak-typed",
  model,
  instructions: "Answer with the plan as JSON.",
  output: Plan,
  maxTrips: 4,
  timeouts,
});
