/**
 * The specification's fitness coach, as a worker module: `DURABLE_AGENT_AGENTS=examples/agents.ts
 * npm run worker` serves it. Uses a real model when OPENAI_API_KEY or OPENAI_BASE_URL is set.
 */
import { z } from "zod";
import { ai } from "durable-agent";

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
