/**
 * The request shapes the library sends, as runs that produce them on their first model call: a
 * conversation input carries an assistant tool-call message (content null), its tool result and a
 * user message of content parts, with typed output with and without tools. Shared by
 * test/request-shapes.test.ts (the wire shape, on the scripted model) and the real-model suite
 * (the same requests, on llama.cpp's server).
 */
import { z } from "zod";
import { ai, type Tool } from "../../src/index.js";
import type { Message } from "../../src/core/types.js";

/** The typed output the shapes ask for. */
export const Plan = z.object({ exercise: z.string(), sets: z.number().int() });

/** A tool the model may call; it always succeeds. */
export function planTool(): Tool {
  return ai.tool({
    name: "update_plan",
    description: "Replace one exercise of the user's plan with another.",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async ({ from, to }) => ({ ok: true, replaced: from, with: to }),
  });
}

/** An earlier turn in which the assistant called the tool without text (content null), and its result; then the user's next request as content parts. */
export const conversation: Message[] = [
  { role: "user", content: "Swap squats for lunges" },
  {
    role: "assistant",
    content: null,
    toolCalls: [{ id: "call_1", name: "update_plan", arguments: JSON.stringify({ from: "squats", to: "lunges" }) }],
  },
  {
    role: "tool",
    toolCallId: "call_1",
    name: "update_plan",
    content: JSON.stringify({ ok: true, replaced: "squats", with: "lunges" }),
  },
  { role: "assistant", content: "Done: squats are now lunges." },
  {
    role: "user",
    content: [
      { type: "text", text: "Now give me one exercise for my legs" },
      { type: "text", text: "and how many sets." },
    ],
  },
];

/** One shape: what the agent has besides its model. */
export interface RequestShape {
  name: string;
  tools: boolean;
  output: boolean;
}

/** Every combination the library sends: tools with and without typed output, typed output without tools, and neither. */
export const requestShapes: RequestShape[] = [
  { name: "tools", tools: true, output: false },
  { name: "output-with-tools", tools: true, output: true },
  { name: "output-without-tools", tools: false, output: true },
  { name: "plain", tools: false, output: false },
];

/** The agent options of a shape (a name unique per shape). */
export function shapeOptions(shape: RequestShape) {
  return {
    name: `shape-${shape.name}`,
    instructions: "You are a fitness coach. Answer briefly.",
    ...(shape.tools ? { tools: [planTool()] } : {}),
    ...(shape.output ? { output: Plan } : {}),
    maxTrips: 4,
  };
}
