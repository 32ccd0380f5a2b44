/**
 * The coach of the compare-models example, and the two models it is compared on, scripted: the
 * OpenAI model its runs were recorded on, which claims a change the tool refused ("Done: squats
 * are now moonwalks."), and Claude, which reads the refusal and says so. Both read the plan
 * (`get_plan`) and ask for the change (`update_plan`) with the same arguments, so a playback of
 * the OpenAI runs on Claude is answered from the recordings.
 */
import { z } from "zod";
import { ai, type AgentModel } from "durable-agent";
import type { ScriptedAnthropicBody, ScriptedProviderHandler, ScriptHandler } from "durable-agent/testing";

/** Exercises the coach may put in a plan; `update_plan` refuses anything else. */
export const LIBRARY = ["squats", "lunges", "push-ups", "burpees", "planks", "rows"];

/** Counts real executions per tool, to show what a playback does not run. */
export const executions = { get_plan: 0, update_plan: 0 };

const getPlan = ai.tool({
  name: "get_plan",
  description: "Read the user's plan.",
  input: z.object({ user: z.string() }),
  execute: async () => {
    executions.get_plan += 1;
    return { plan: ["squats", "push-ups", "planks", "rows"] };
  },
});

const updatePlan = ai.tool({
  name: "update_plan",
  description: "Replace one exercise of the plan with another from the library.",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ from, to }) => {
    executions.update_plan += 1;
    if (!LIBRARY.includes(to)) return { ok: false, reason: `${to} is not in the library` }; // a refusal
    return { ok: true, replaced: from, with: to };
  },
});

/** The coach on any model: the same instructions and tools, whichever model answers. */
export function createCoach(options: { name: string; model: AgentModel }) {
  return ai.agent({
    name: options.name,
    model: options.model,
    instructions: "You are a fitness coach. Read the plan with get_plan, change it with update_plan.",
    tools: [getPlan, updatePlan],
    maxTrips: 6,
  });
}

const SWAP = /^swap (\S+) for (\S+?)\.?$/i;

/** What both models do before they answer: read the plan, then ask for the swap. */
function nextCall(input: string, calledSoFar: number): { name: string; arguments: Record<string, string> } | undefined {
  const swap = SWAP.exec(input);
  if (calledSoFar === 0) return { name: "get_plan", arguments: { user: "u-1" } };
  if (calledSoFar === 1 && swap) return { name: "update_plan", arguments: { from: swap[1]!, to: swap[2]! } };
  return undefined;
}

/** Yesterday's OpenAI model (Chat Completions): it claims the swap even when `update_plan` refused it. */
export const yesterdaysOpenAI: ScriptHandler = ({ body }) => {
  const input = String(body.messages.find((m) => m.role === "user")?.content ?? "");
  const called = body.messages.flatMap((m) => m.tool_calls ?? []).length;
  const call = nextCall(input, called);
  if (call) return { toolCalls: [call] };
  const swap = SWAP.exec(input);
  return swap ? `Done: ${swap[1]} are now ${swap[2]}.` : "Squats work your quads, glutes and hamstrings.";
};

/** Claude (Anthropic Messages): the same calls, and an answer that says what the tool said. */
export const claudeAnswers: ScriptedProviderHandler<ScriptedAnthropicBody> = ({ body }) => {
  const blocks = body.messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }],
  );
  const first = body.messages[0]!;
  const input =
    typeof first.content === "string" ? first.content : first.content.map((block) => String(block.text ?? "")).join("");
  const call = nextCall(input, blocks.filter((block) => block.type === "tool_use").length);
  if (call) return { toolCalls: [call] };
  const swap = SWAP.exec(input);
  if (!swap) return "Squats work your quads, glutes and hamstrings.";
  const refused = blocks.some(
    (block) => block.type === "tool_result" && JSON.stringify(block.content).includes("not in the library"),
  );
  return refused
    ? `I could not put ${swap[2]} in: it is not in the library. Your plan still has ${swap[1]}.`
    : `Done: ${swap[1]} are now ${swap[2]}.`;
};
