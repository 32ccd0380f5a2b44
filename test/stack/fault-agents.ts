/**
 * The agent the stack's worker processes serve in the fault tests (DURABLE_AGENT_AGENTS).
 * - Its tool logs each attempt to TOOL_LOG (with the worker's pid), then waits at the test's gate
 *   (GET GATE_URL/<case>: the test answers when the fault is done), then records its effect in an
 *   idempotent store (EFFECTS_LOG, keyed by the tool call's idempotencyKey).
 * - A before backstop records the reported injury in the same store, keyed by its idempotencyKey.
 * Activities heartbeat every 2/3 s, so an attempt lost with a worker is retried after 2 s.
 * - `stack-memory-coach` remembers each run's user in the stack's memory database
 *   (DURABLE_AGENT_MEMORY_URL, which the stack gives every worker), embedding at EMBEDDINGS_URL.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { createOpenAI } from "@ai-sdk/openai";
import { ai } from "../../src/index.js";

const toolLog = process.env.TOOL_LOG!;
const effectsLog = process.env.EFFECTS_LOG!;

/** An idempotent store: an effect whose key is already recorded is not repeated. */
function recordOnce(key: string, effect: string): void {
  const done = existsSync(effectsLog) ? readFileSync(effectsLog, "utf8").split("\n") : [];
  if (!done.some((line) => line.startsWith(`${key} `))) appendFileSync(effectsLog, `${key} ${effect}\n`);
}

export const faultCoach = ai.agent({
  name: "fault-coach",
  model: ai.openai("gpt-test"),
  timeouts: { heartbeat: "2 seconds" },
  tools: [
    ai.tool({
      name: "update_plan",
      input: z.object({ case: z.string(), from: z.string(), to: z.string() }),
      execute: async (input, ctx) => {
        appendFileSync(toolLog, `${input.case} started ${ctx.attempt} ${process.pid}\n`);
        const response = await fetch(`${process.env.GATE_URL}/${input.case}`, { signal: ctx.signal });
        if (!response.ok) throw new Error(`gate answered ${response.status}`);
        recordOnce(ctx.idempotencyKey, `${input.case} swapped ${input.from} for ${input.to}`);
        appendFileSync(toolLog, `${input.case} completed ${ctx.attempt} ${process.pid}\n`);
        return { ok: true, swapped: { from: input.from, to: input.to } };
      },
    }),
  ],
  backstops: [
    {
      name: "injury-capture",
      phase: "before",
      detect: (turn) => /\bhurt\b/i.test(turn.input),
      run: async ({ input, idempotencyKey }) => {
        recordOnce(idempotencyKey, `injury: ${input}`);
        return { prompt: "The user reported an injury. Acknowledge it first." };
      },
    },
  ],
});

/** The agent of the memory check: the stack's PostgreSQL as its store, the test's scripted embeddings server as its embedder. */
export const memoryCoach = ai.agent({
  name: "stack-memory-coach",
  model: ai.openai("gpt-test"),
  instructions: "You are a coach who remembers.",
  memory: ai.memory({
    store: ai.memory.postgres({ url: process.env.DURABLE_AGENT_MEMORY_URL ?? "postgres://unset" }),
    embedder: createOpenAI({ baseURL: process.env.EMBEDDINGS_URL, apiKey: "test" }).embeddingModel("embed-test"),
  }),
});
