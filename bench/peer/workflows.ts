/**
 * The peer: the benchmark's conversation through `@temporalio/ai-sdk`, the AI SDK's `generateText`
 * in a workflow, the model through the plugin's activity and the tool calling an activity. Bundled
 * on its own (with the plugin, which adds the Web API polyfills the AI SDK needs).
 */
import { generateText, stepCountIs, tool } from "ai";
import { temporalProvider } from "@temporalio/ai-sdk/workflow";
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
  return { text: result.text, steps: result.steps.length, toolCalls: result.steps.reduce((n, step) => n + step.toolCalls.length, 0) };
}
