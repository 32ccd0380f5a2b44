/**
 * The peer, `@temporalio/ai-sdk`: its worker (AiSdkPlugin with an OpenAI provider against the
 * scripted model, the tool activity), its workflow bundled on its own from bench/peer/, and its
 * own in-process floor (the same `generateText` with the provider called directly and the tool
 * executed directly), so its overhead is measured the way ours is.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { AiSdkPlugin } from "@temporalio/ai-sdk";
import { bundleWorkflowCode, Worker } from "@temporalio/worker";
import { customProvider, generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import type { Bench } from "./lib.js";
import { recordStep } from "./peer/activities.js";
import type { peerTrips, PeerResult } from "./peer/workflows.js";
import { MODEL_ID, TOOL_DESCRIPTION } from "./scenario.js";
import { quietBundlerLogger } from "../src/workflow-bundle.js";

/** The scripted model as an AI SDK provider: Chat Completions (the scripted server's API), no retries of its own. */
function scriptedProvider(baseURL: string) {
  const openai = createOpenAI({ baseURL, apiKey: "bench" });
  return customProvider({ languageModels: { [MODEL_ID]: openai.chat(MODEL_ID) } });
}

export interface Peer {
  /** One durable run of the conversation through the peer; resolves to its result and workflow handle. */
  run(input: string, maxSteps: number): Promise<{ result: PeerResult; workflowId: string }>;
  /** The same conversation through `generateText` in this process, with no Temporal. */
  runInProcess(input: string, maxSteps: number): Promise<PeerResult>;
  close(): Promise<void>;
}

/** The peer's plugin with the scripted model as its provider (for a worker with a prebuilt bundle). */
export function aiSdkPlugin(baseURL: string) {
  const provider = scriptedProvider(baseURL);
  return { provider, plugin: new AiSdkPlugin({ modelProvider: provider }) };
}

/** The activities of the peer's worker: the tool. */
export const aiSdkActivities = { recordStep };

let prepared:
  | {
      baseURL: string;
      provider: ReturnType<typeof scriptedProvider>;
      plugin: AiSdkPlugin;
      bundle: ReturnType<typeof bundleWorkflowCode>;
    }
  | undefined;

/** The peer's provider, plugin and workflow bundle (bundled once; start it early, it takes seconds). */
export function preparePeer(baseURL: string) {
  if (prepared?.baseURL !== baseURL) {
    const { provider, plugin } = aiSdkPlugin(baseURL);
    const bundle = bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL("./peer/workflows.ts", import.meta.url)),
      plugins: [plugin],
      logger: quietBundlerLogger,
    });
    bundle.catch(() => undefined); // reported where it is awaited
    prepared = { baseURL, provider, plugin, bundle };
  }
  return prepared;
}

/** Starts the peer's worker on a fresh task queue. */
export async function startPeer(bench: Bench, baseURL: string): Promise<Peer> {
  const { provider, plugin, bundle } = preparePeer(baseURL);
  const workflowBundle = await bundle;
  const taskQueue = `bench-peer-${randomUUID()}`;
  const worker = await Worker.create({
    connection: bench.connection,
    taskQueue,
    workflowBundle,
    activities: aiSdkActivities,
    plugins: [plugin],
  });
  const running = worker.run();
  return {
    async run(input, maxSteps) {
      const workflowId = `peer-${randomUUID()}`;
      const result = await bench.client.workflow.execute<typeof peerTrips>("peerTrips", {
        taskQueue,
        workflowId,
        args: [input, maxSteps],
      });
      return { result, workflowId };
    },
    async runInProcess(input, maxSteps) {
      const result = await generateText({
        model: provider.languageModel(MODEL_ID),
        prompt: input,
        tools: {
          record_step: tool({
            description: TOOL_DESCRIPTION,
            inputSchema: z.object({ step: z.number().int() }),
            execute: (args) => recordStep(args),
          }),
        },
        stopWhen: stepCountIs(maxSteps),
      });
      return {
        text: result.text,
        steps: result.steps.length,
        toolCalls: result.steps.reduce((n, step) => n + step.toolCalls.length, 0),
      };
    },
    async close() {
      worker.shutdown();
      await running;
    },
  };
}
