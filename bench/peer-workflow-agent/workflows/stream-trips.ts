/**
 * The streamed conversation as a WorkflowAgent: the scripted model (an OpenAI-compatible server on
 * loopback) answers with text on every trip and calls `record_step` on every trip but the last;
 * the agent writes the model's stream parts to the run's default stream.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { WorkflowAgent } from "@ai-sdk/workflow";
import { WORKFLOW_DESERIALIZE, WORKFLOW_SERIALIZE } from "@workflow/serde";
import { tool } from "ai";
import { getWritable } from "workflow";
import { z } from "zod";

/**
 * The scripted model through `@ai-sdk/openai-compatible`, as a class of our own with the
 * Workflow serialization protocol. The provider's own model (built in the workflow body) reaches
 * `doStreamStep` serialized, and the step bundle cannot revive it: "Class
 * class//@ai-sdk/openai-compatible@3.0.92//OpenAICompatibleChatLanguageModel not found. Make sure
 * the class is registered with registerSerializationClass" (the step-mode transform drops imports
 * that only the workflow body uses). A class in this file is registered in both bundles.
 */
class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider = "bench";
  readonly supportedUrls = {};
  constructor(
    readonly baseURL: string,
    readonly modelId: string,
  ) {}

  static [WORKFLOW_SERIALIZE](model: ScriptedModel) {
    return { baseURL: model.baseURL, modelId: model.modelId };
  }

  static [WORKFLOW_DESERIALIZE](options: { baseURL: string; modelId: string }) {
    return new ScriptedModel(options.baseURL, options.modelId);
  }

  private model() {
    return createOpenAICompatible({ name: "bench", baseURL: this.baseURL, apiKey: "bench" }).chatModel(this.modelId);
  }

  doGenerate(options: LanguageModelV4CallOptions) {
    return this.model().doGenerate(options);
  }

  doStream(options: LanguageModelV4CallOptions) {
    return this.model().doStream(options);
  }
}

/** The tool's work, a step (as the Workflow docs define tools). */
async function recordStep({ step }: { step: number }) {
  "use step";
  return { recorded: step };
}

/** One streamed conversation; returns the number of messages the agent produced. */
export async function streamTrips(
  prompt: string,
  options: { baseURL: string; modelId: string; toolName: string; toolDescription: string },
) {
  "use workflow";
  const agent = new WorkflowAgent({
    model: new ScriptedModel(options.baseURL, options.modelId),
    tools: {
      [options.toolName]: tool({
        description: options.toolDescription,
        inputSchema: z.object({ step: z.number().int() }),
        execute: recordStep,
      }),
    },
  });
  const result = await agent.stream({ messages: [{ role: "user", content: prompt }], writable: getWritable() });
  return result.messages.length;
}
