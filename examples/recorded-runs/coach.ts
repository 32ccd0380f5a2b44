/**
 * The coach of the recorded-runs example: it looks the plan up (`get_plan`, a read that takes a
 * moment, like a real lookup) and changes it (`update_plan`). `actWhenAsked` is the fix under test.
 */
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { ai, type ModelReference } from "../../src/index.js"; // in your project: from "durable-agent"
import type { ScriptHandler } from "../../src/testing/index.js"; // in your project: from "durable-agent/testing"

/** Exercises the coach may put in a plan; anything else is refused. */
export const LIBRARY = ["squats", "lunges", "push-ups", "burpees", "planks", "rows"];

/** Counts real executions per tool, to show what a replay does not run. */
export const executions = { get_plan: 0, update_plan: 0 };

const getPlan = ai.tool({
  name: "get_plan",
  description: "Read the user's plan.",
  input: z.object({ user: z.string() }),
  execute: async () => {
    executions.get_plan += 1;
    await delay(100); // a lookup in a real system
    return { plan: ["squats", "push-ups", "planks"] };
  },
});

const updatePlan = ai.tool({
  name: "update_plan",
  description: "Replace one exercise of the plan with another. Call this to make a change; do not just offer it.",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ from, to }) => {
    executions.update_plan += 1;
    if (!LIBRARY.includes(to)) return { ok: false, reason: `${to} is not in the library` };
    return { ok: true, replaced: from, with: to };
  },
});

/** The coach; `actWhenAsked: true` re-prompts it when it offers instead of acting. */
export function createCoach(options: { actWhenAsked: boolean; model: ModelReference; name?: string }) {
  return ai.agent({
    name: options.name ?? "coach",
    model: options.model,
    instructions: "You are a fitness coach. Read the plan with get_plan, change it with update_plan.",
    tools: [getPlan, updatePlan],
    maxTrips: 6,
    ...(options.actWhenAsked
      ? { actWhenAsked: { intents: [/\b(swap|change)\b/i], requiredTools: ["update_plan"] } }
      : {}),
  });
}

/**
 * A scripted model with the failure `actWhenAsked` is for: it reads the plan, then, asked to swap,
 * offers ("Want me to swap that?") instead of acting; re-prompted, it acts. Asked to change, it acts.
 */
export const offeringCoachModel: ScriptHandler = ({ body }) => {
  const input = String(body.messages.find((m) => m.role === "user")?.content ?? "");
  const match = /^(swap|change) (\S+) (?:for|to) (\S+?)\.?$/i.exec(input);
  const last = body.messages.at(-1);
  const tools = body.messages.flatMap((m) =>
    (m.tool_calls ?? []).map((c) => (c as { function: { name: string } }).function.name),
  ); // tools called so far
  if (tools.length === 0) return { toolCalls: [{ name: "get_plan", arguments: { user: "u-1" } }] };
  if (!match) return "Squats work your legs.";
  const [, verb, from, to] = match;
  if (tools.includes("update_plan") && last?.role === "tool") return `Done: ${from} are now ${to}.`;
  // Asked to change, or re-prompted by actWhenAsked (the last message is the re-prompt): it acts.
  if (verb!.toLowerCase() === "change" || last?.role === "user")
    return { toolCalls: [{ name: "update_plan", arguments: { from: from!, to: to! } }] };
  return `${to} are a great swap for ${from}. Want me to swap that?`;
};
