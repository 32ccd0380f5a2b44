/**
 * The peer: the benchmark's conversation through `@temporalio/ai-sdk`, the AI SDK's `generateText`
 * in a workflow, the model through the plugin's activity and the tool calling an activity. Bundled
 * on its own (with the plugin, which adds the Web API polyfills the AI SDK needs).
 */
import { generateText, stepCountIs, streamText, tool } from "ai";
import { TemporalProvider, temporalProvider } from "@temporalio/ai-sdk/workflow";
import { WorkflowStream } from "@temporalio/workflow-streams/workflow";
import { proxyActivities } from "@temporalio/workflow";
import { z } from "zod";
import type * as activities from "./activities.js";

const { recordStep } = proxyActivities<typeof activities>({ startToCloseTimeout: "1 minute" });

export interface PeerResult {
  text: string;
  steps: number;
  toolCalls: number;
}

export async function peerTrips(input: string, maxSteps: number): Promise<PeerResult> {
  const result = await generateText({
    model: temporalProvider.languageModel("gpt-bench"),
    prompt: input,
    tools: {
      record_step: tool({
        description: "Records one step of the plan.",
        inputSchema: z.object({ step: z.number().int() }),
        // Only the input goes to the activity (the options carry the whole conversation).
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
}

/** The stream topic the peer's streaming model activity publishes its stream parts on. */
export const PEER_STREAM_TOPIC = "tokens";

/** The same conversation through `streamText`: each model call publishes its stream parts to the workflow's stream (the peer's streaming mode). */
export async function peerStreamTrips(input: string, maxSteps: number): Promise<PeerResult> {
  new WorkflowStream(); // hosts the stream the model activity publishes to, and subscribers poll
  const result = streamText({
    model: new TemporalProvider({ languageModel: { streamingTopic: PEER_STREAM_TOPIC } }).languageModel("gpt-bench"),
    prompt: input,
    tools: {
      record_step: tool({
        description: "Records one step of the plan.",
        inputSchema: z.object({ step: z.number().int() }),
        execute: (args) => recordStep(args),
      }),
    },
    stopWhen: stepCountIs(maxSteps),
  });
  const steps = await result.steps;
  return {
    text: await result.text,
    steps: steps.length,
    toolCalls: steps.reduce((n, step) => n + step.toolCalls.length, 0),
  };
}
