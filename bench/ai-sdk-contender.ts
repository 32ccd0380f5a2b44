/**
 * Ours on an AI SDK model (issue 31): the benchmark's conversation on
 * `ai.model(createOpenAI({ baseURL }).chat(...))`, the same scripted answers `ai.openai()` gets,
 * against its own in-process floor: the same model through the AI SDK's `generateText` loop, with
 * no Temporal (as the `@temporalio/ai-sdk` peer's floor). Its per-trip overhead is compared with
 * ours on `ai.openai()` (activities) in the goals.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { WorkflowHandle } from "@temporalio/client";
import { generateText, stepCountIs, tool } from "ai";
import { ai, type Agent } from "../src/index.js";
import type { Bench } from "./lib.js";
import {
  FINAL_ANSWER,
  inputFor,
  MODEL_ID,
  recordStep,
  stepInput,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TRIPS,
} from "./scenario.js";

/** The row's name in the tables and the goals. */
export const AI_SDK_CONTENDER = "durable-agent (AI SDK model)";

/** The scripted Chat Completions server as an AI SDK language model (`@ai-sdk/openai`'s chat model). */
const languageModel = (baseURL: string) => createOpenAI({ baseURL, apiKey: "bench" }).chat(MODEL_ID);

/** Our agent for the conversation on the AI SDK model (activities). */
export function aiSdkBenchAgent(baseURL: string): Agent {
  return ai.agent({
    name: "bench-trips-ai-sdk",
    model: ai.model(languageModel(baseURL)),
    tools: [ai.tool({ name: TOOL_NAME, description: TOOL_DESCRIPTION, input: stepInput, execute: recordStep })],
    maxTrips: 1000,
  });
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench: ${what}`);
}

/** The AI SDK model's side of the comparison: the durable run, and `generateText` in process as its floor. */
export function aiSdkContender(
  bench: Bench,
  baseURL: string,
  taskQueue: () => string,
): {
  name: string;
  library: string;
  modelActivity: string;
  toolActivity: string;
  floor(): Promise<void>;
  durable(): Promise<WorkflowHandle>;
} {
  const input = inputFor(TRIPS);
  const agent = aiSdkBenchAgent(baseURL);
  const model = languageModel(baseURL);
  return {
    name: AI_SDK_CONTENDER,
    library: "durable-agent",
    modelActivity: "model.call",
    toolActivity: "tool.execute",
    async floor() {
      const result = await generateText({
        model,
        prompt: input,
        tools: {
          [TOOL_NAME]: tool({
            description: TOOL_DESCRIPTION,
            inputSchema: stepInput,
            execute: (args) => recordStep(args),
          }),
        },
        stopWhen: stepCountIs(TRIPS),
      });
      check(
        result.steps.length === TRIPS && result.text === FINAL_ANSWER,
        `AI SDK in-process run made ${result.steps.length} steps`,
      );
    },
    async durable() {
      const handle = await agent.start(input, { client: bench.client, taskQueue: taskQueue() });
      const result = await handle.result();
      check(
        result.trips === TRIPS && result.reply === FINAL_ANSWER,
        `durable run on the AI SDK model made ${result.trips} trips`,
      );
      return handle.workflow;
    },
  };
}
