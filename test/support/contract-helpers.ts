/** Runs agents with contract options against a scripted model on the suite's Temporal server. */
import { z } from "zod";
import { ai, type AgentOptions, type RunResult } from "../../src/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../../src/testing/index.js";
import { withWorker, type Harness } from "./harness.js";

/** The specification's tool: swaps one exercise; refuses names that are not in the library. */
export function updatePlanTool(calls: unknown[] = []) {
  return ai.tool({
    name: "update_plan",
    description: "Swap an exercise",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async (input) => {
      calls.push(input);
      if (input.to === "moonwalks") return { ok: false, reason: "moonwalks is not in the library" };
      return { ok: true };
    },
  });
}

export const swap = (to = "lunges"): ScriptedTurn => ({
  toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }],
});

/** Runs one agent (name, model filled in) against the script; returns the result and what the model was sent. */
export async function runContract(
  harness: Harness,
  options: Omit<AgentOptions, "model">,
  script: ScriptedTurn[],
  input = "Swap squats for lunges",
): Promise<{ result: RunResult; requests: ScriptedRequest[] }> {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({
      name: "contract-agent",
      ...options,
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue }),
    );
    return { result, requests: model.requests };
  } finally {
    await model.close();
  }
}

/** The messages of a request as (role, text) pairs, tool calls shown by name. */
export function transcript(messages: RunResult["messages"]): string[] {
  return messages.map((m) =>
    m.role === "assistant" && m.toolCalls?.length
      ? `assistant: [${m.toolCalls.map((c) => c.name).join(", ")}]`
      : `${m.role}: ${m.role === "tool" ? m.content : (m.content ?? "")}`,
  );
}

/** The re-prompts of a result's trace. */
export function reprompts(result: RunResult) {
  return result.trace.filter((e) => e.type === "reprompt");
}
