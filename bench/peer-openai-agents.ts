/**
 * The second peer, `@temporalio/openai-agents`: its worker (OpenAIAgentsPlugin with an
 * OpenAIProvider on Chat Completions against the scripted model, the tool activity), its workflow
 * bundled on its own from bench/peer-openai-agents/, and its own in-process floor (the upstream
 * `Runner` with the same provider and the tool executed directly).
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Agent, Runner, setTracingDisabled, tool } from "@openai/agents-core";
import { OpenAIProvider } from "@openai/agents-openai";
import { OpenAIAgentsPlugin } from "@temporalio/openai-agents";
import { bundleWorkflowCode, Worker } from "@temporalio/worker";
import { z } from "zod";
import type { Bench } from "./lib.js";
import type { Peer } from "./peer.js";
import { recordStep } from "./peer/activities.js";
import type { openaiAgentsTrips } from "./peer-openai-agents/workflows.js";
import { MODEL_ID, TOOL_DESCRIPTION, TOOL_NAME } from "./scenario.js";
import { quietBundlerLogger } from "../src/workflow-bundle.js";

/** The scripted model as an Agents SDK provider: Chat Completions (the scripted server's API). */
function scriptedProvider(baseURL: string) {
  return new OpenAIProvider({ baseURL, apiKey: "bench", useResponses: false });
}

/** The peer's plugin with the scripted model as its provider (for a worker with a prebuilt bundle). */
export function openaiAgentsPlugin(baseURL: string) {
  setTracingDisabled(true); // no trace export to OpenAI from this process
  const provider = scriptedProvider(baseURL);
  return {
    provider,
    plugin: new OpenAIAgentsPlugin({ modelProvider: provider, modelParams: { startToCloseTimeout: "1 minute" } }),
  };
}

let prepared:
  | {
      baseURL: string;
      provider: OpenAIProvider;
      plugin: OpenAIAgentsPlugin;
      bundle: ReturnType<typeof bundleWorkflowCode>;
    }
  | undefined;

/** The peer's provider, plugin and workflow bundle (bundled once; start it early, it takes seconds). */
export function prepareOpenAIAgentsPeer(baseURL: string) {
  if (prepared?.baseURL !== baseURL) {
    const { provider, plugin } = openaiAgentsPlugin(baseURL);
    const bundle = bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL("./peer-openai-agents/workflows.ts", import.meta.url)),
      plugins: [plugin],
      logger: quietBundlerLogger,
      // agents-core 0.11.7 imports its sandbox agent lazily; a workflow bundle is one script, so no chunks.
      webpackConfigHook: (config) => ({
        ...config,
        module: {
          ...config.module,
          parser: {
            ...config.module?.parser,
            javascript: { ...config.module?.parser?.javascript, dynamicImportMode: "eager" },
          },
        },
      }),
    });
    bundle.catch(() => undefined); // reported where it is awaited
    prepared = { baseURL, provider, plugin, bundle };
  }
  return prepared;
}

/** The activities of the peer's worker: the tool, under the tool's name. */
export const openaiAgentsActivities = { [TOOL_NAME]: recordStep };

/** Starts the peer's worker on a fresh task queue. */
export async function startOpenAIAgentsPeer(bench: Bench, baseURL: string): Promise<Peer> {
  const { provider, plugin, bundle } = prepareOpenAIAgentsPeer(baseURL);
  const workflowBundle = await bundle;
  const taskQueue = `bench-openai-agents-${randomUUID()}`;
  const worker = await Worker.create({
    connection: bench.connection,
    taskQueue,
    workflowBundle,
    activities: openaiAgentsActivities,
    plugins: [plugin],
  });
  const running = worker.run();
  const agent = new Agent({
    name: "bench",
    instructions: "",
    model: MODEL_ID,
    tools: [
      tool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ step: z.number().int() }),
        execute: async (args) => recordStep(args),
      }),
    ],
  });
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  return {
    async run(input, maxSteps) {
      const workflowId = `peer-openai-agents-${randomUUID()}`;
      const result = await bench.client.workflow.execute<typeof openaiAgentsTrips>("openaiAgentsTrips", {
        taskQueue,
        workflowId,
        args: [input, maxSteps],
      });
      return { result, workflowId };
    },
    async runInProcess(input, maxSteps) {
      const result = await runner.run(agent, input, { maxTurns: maxSteps });
      return {
        text: String(result.finalOutput ?? ""),
        steps: result.rawResponses.length,
        toolCalls: result.newItems.filter((item) => item.type === "tool_call_item").length,
      };
    },
    async close() {
      worker.shutdown();
      await running;
    },
  };
}
