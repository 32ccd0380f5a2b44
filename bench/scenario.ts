/**
 * The benchmark's conversation: "Record N steps" makes the scripted model call `record_step` once
 * per trip for N − 1 trips and answer on trip N. The script is a function of the request (it counts
 * the tool results already in the conversation), so one server answers any number of runs at once,
 * ours and the peer's alike.
 */
import { z } from "zod";
import { ai, type Agent } from "../src/index.js";
import type { ScriptedRequest, ScriptedTurn } from "../src/testing/index.js";

/** Trips (model calls) of the compared conversation: 9 with one tool call each, then the answer. */
export const TRIPS = 10;
export const MODEL_ID = "gpt-bench";
export const TOOL_NAME = "record_step";
export const TOOL_DESCRIPTION = "Records one step of the plan.";
export const FINAL_ANSWER = "All steps are recorded.";

/** The user's input for a conversation of `trips` model calls. */
export const inputFor = (trips: number) => `Record ${trips} steps, one at a time.`;

/** The tool's work, shared by every path: ours durable, ours in-process, the peer's. */
export const recordStep = ({ step }: { step: number }) => ({ recorded: step });

export const stepInput = z.object({ step: z.number().int() });

/** The text of a message's content (a string, or its text parts joined). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}

/** The scripted model: a tool call per trip until the conversation has `trips − 1` tool results, then the answer. */
export function benchScript(request: ScriptedRequest): ScriptedTurn {
  const messages = request.body.messages;
  const trips = Number(
    /Record (\d+) steps/.exec(textOf(messages.find((m) => m.role === "user")?.content))?.[1] ?? TRIPS,
  );
  const done = messages.filter((m) => m.role === "tool").length;
  if (done >= trips - 1) return FINAL_ANSWER;
  return { toolCalls: [{ name: TOOL_NAME, arguments: { step: done + 1 } }] };
}

/** Where our agent's calls run: activities (the default), the tool as a local activity, or the model call and the tool as local activities. */
export type BenchExecution = "activities" | "local-tools" | "local";
export const EXECUTION_LABEL: Record<BenchExecution, string> = {
  activities: "activities",
  "local-tools": "local tools",
  local: "local model and tools",
};
export const BENCH_EXECUTIONS: readonly BenchExecution[] = ["activities", "local-tools", "local"];

/** Our agent for the conversation, against the scripted model at `baseURL` (named after its execution setting unless it is the default). */
export function benchAgent(
  baseURL: string,
  name = "bench-trips",
  maxTrips = 1000,
  execution: BenchExecution = "activities",
): Agent {
  const tool = ai.tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: stepInput,
    execute: recordStep,
    ...(execution !== "activities" ? { execution: "local" as const } : {}),
  });
  return ai.agent({
    name: execution === "activities" ? name : `${name}-${execution}`,
    model: ai.openai(MODEL_ID, { baseURL, apiKey: "bench" }),
    tools: [tool],
    maxTrips,
    ...(execution === "local" ? { modelExecution: "local" as const } : {}),
  });
}

/** The throughput worker's slots, raised from the SDK defaults (100 activities, 40 workflow tasks) so 1,000 runs can be in flight. */
export const THROUGHPUT_WORKER_OPTIONS = {
  maxConcurrentActivityTaskExecutions: 1000,
  maxConcurrentLocalActivityExecutions: 1000,
  maxConcurrentWorkflowTaskExecutions: 100,
};
