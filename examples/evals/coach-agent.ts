/**
 * The coach under evaluation, with the tool-use contract on or off. Uses a real model when
 * OPENAI_API_KEY / OPENAI_BASE_URL is set (read on the worker), or the model you pass.
 */
import { z } from "zod";
import { ai, type AgentModel } from "../../src/index.js"; // in your project: from "durable-agent"

/** Exercises the coach may put in a plan; anything else is refused. */
export const LIBRARY = ["squats", "lunges", "push-ups", "burpees", "planks", "side planks"];

/** Swaps one exercise for another. Stateless, so runs of an eval can go in parallel. */
export const updatePlan = ai.tool({
  name: "update_plan",
  description:
    "Replace one exercise of the user's plan with another. Call this to make a change; do not just offer it.",
  input: z.object({
    from: z.string().describe("the exercise to remove"),
    to: z.string().describe("the exercise to add"),
  }),
  execute: async ({ from, to }) => {
    if (!LIBRARY.includes(to.toLowerCase()))
      return { ok: false, reason: `${to} is not in the library (${LIBRARY.join(", ")})` };
    return { ok: true, replaced: from, with: to };
  },
});

/** The coach; `contract: true` turns on actWhenAsked and onToolRefusal. */
export function createCoach(options: { contract: boolean; model?: AgentModel }) {
  return ai.agent({
    name: "coach",
    model: options.model ?? ai.openai(process.env.OPENAI_MODEL ?? "gpt-4o-mini"),
    instructions:
      "You are a fitness coach. The user's plan is: squats, push-ups, planks. Use update_plan to change it.",
    tools: [updatePlan],
    maxTrips: 6,
    ...(options.contract
      ? {
          actWhenAsked: { intents: [/\b(swap|replace|change|add|remove)\b/i], requiredTools: ["update_plan"] },
          onToolRefusal: "retry-once-with-hint" as const,
        }
      : {}),
  });
}
