/** The streaming tests' agent: one `update_plan` tool (optionally behind an approval), on a scripted model at `baseURL`. */
import { z } from "zod";
import { ai } from "../../src/index.js";

/** The tool call the paced models make on their first answer. */
export const UPDATE_PLAN_CALL = { name: "update_plan", arguments: { from: "squats", to: "lunges" } };

/** An agent named `name` whose `update_plan` tool answers `{ ok: true }`. */
export function planAgent(baseURL: string, name: string, needsApproval = false) {
  return ai.agent({
    name,
    model: ai.openai("gpt-test", { baseURL }),
    tools: [
      ai.tool({
        name: "update_plan",
        input: z.object({ from: z.string(), to: z.string() }),
        needsApproval,
        execute: async () => ({ ok: true }),
      }),
    ],
  });
}
