/**
 * The specification's fitness coach, as a worker module: `DURABLE_AGENT_AGENTS=examples/agents.ts
 * npm run worker` serves it. Uses a real model when OPENAI_API_KEY or OPENAI_BASE_URL is set.
 * With DURABLE_AGENT_MEMORY_URL (docker-compose.yml and `npm run stack` set it), the coach
 * remembers each run's `user` across sessions in that PostgreSQL database (docs/memory.md), its
 * embeddings from OPENAI_EMBEDDING_MODEL (default text-embedding-3-small) at OPENAI_BASE_URL.
 */
import { z } from "zod";
import { ai } from "durable-agent";

/** The coach's memory, when DURABLE_AGENT_MEMORY_URL names a PostgreSQL database (`pg`, `ai` and `@ai-sdk/openai` installed). */
async function memoryFromEnvironment() {
  const url = process.env.DURABLE_AGENT_MEMORY_URL;
  if (!url) return undefined;
  const { createOpenAI } = await import("@ai-sdk/openai");
  return ai.memory({
    store: ai.memory.postgres({ url }),
    embedder: createOpenAI().embeddingModel(process.env.OPENAI_EMBEDDING_MODEL ?? "text-embedding-3-small"),
    workingMemory: { template: "# Athlete\n- Injuries:\n- Goals:" },
  });
}
const memory = await memoryFromEnvironment();

/** Injuries reported, by idempotency key; a real app would write them to its database. */
export const injuries = new Map<string, string>();

/** The user's plan, kept in memory for the demo. */
export const plan = { exercises: ["squats", "push-ups", "planks"] };

export const updatePlan = ai.tool({
  name: "update_plan",
  description:
    "Replace one exercise of the user's plan with another. Call this to make a change; do not just offer it.",
  input: z.object({
    from: z.string().describe("the exercise to remove"),
    to: z.string().describe("the exercise to add"),
  }),
  execute: async ({ from, to }) => {
    const index = plan.exercises.findIndex((name) => name.toLowerCase() === from.toLowerCase());
    if (index < 0) return { ok: false, reason: `"${from}" is not in the plan (${plan.exercises.join(", ")})` };
    plan.exercises[index] = to;
    return { ok: true, plan: plan.exercises };
  },
});

export const coach = ai.agent({
  name: "coach",
  model: ai.openai(process.env.OPENAI_MODEL ?? "gpt-4o-mini"),
  instructions: "You are a fitness coach. The user's plan is: squats, push-ups, planks. Use update_plan to change it.",
  tools: [updatePlan],
  maxTrips: 6,
  ...(memory ? { memory } : {}),
  // The specification's tool-use contract: act when asked, retry after a refusal, capture injuries.
  actWhenAsked: {
    intents: [/\b(swap|replace|change|add|remove)\b/i],
    requiredTools: ["update_plan"],
  },
  onToolRefusal: "retry-once-with-hint",
  backstops: [
    {
      name: "injury-capture",
      phase: "before",
      detect: (turn) => /\b(hurt|injur|pain)\b/i.test(turn.input),
      run: async ({ input, idempotencyKey }) => {
        injuries.set(idempotencyKey, input); // keyed, so a retried run records it once
        return { prompt: "The user reported an injury. Acknowledge it first." };
      },
    },
  ],
});
