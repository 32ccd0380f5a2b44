/** Agents on AI SDK models against the scripted provider servers. */
import { createAnthropic } from "@ai-sdk/anthropic";
import { ai, type AgentOptions, type AiSdkModelSettings } from "../../src/index.js";
import type { ScriptedAnthropicBody, ScriptedProviderRequest } from "../../src/testing/index.js";

/** Extended thinking, as `providerOptions.anthropic.thinking`. */
export const thinking = { type: "enabled", budgetTokens: 1024 };

/** `@ai-sdk/anthropic`'s Claude pointed at a scripted Anthropic server. */
export function claude(baseURL: string, modelId = "claude-sonnet-4-5") {
  return createAnthropic({ baseURL, apiKey: "sk-ant-test" })(modelId);
}

/** Claude with extended thinking on, and any other settings. */
export function thinkingClaude(baseURL: string, settings: AiSdkModelSettings = {}, modelId?: string) {
  return ai.model(claude(baseURL, modelId), {
    ...settings,
    providerOptions: { anthropic: { thinking }, ...settings.providerOptions },
  });
}

/** An agent on Claude with thinking, named and instructed "You are <name>." (how `agentOfClaude` tells agents apart). */
export function claudeAgent(
  name: string,
  baseURL: string,
  options: Omit<AgentOptions, "model" | "name"> = {},
  settings: AiSdkModelSettings = {},
) {
  return ai.agent({ name, instructions: `You are ${name}.`, model: thinkingClaude(baseURL, settings), ...options });
}

/** The agent an Anthropic request came from, by its system prompt. */
export function agentOfClaude(request: ScriptedProviderRequest<ScriptedAnthropicBody>): string {
  const system = request.body.system;
  const text =
    typeof system === "string"
      ? system
      : Array.isArray(system)
        ? system.map((block) => String(block.text ?? "")).join("")
        : "";
  return /^You are ([\w.-]+)\./.exec(text)?.[1] ?? "?";
}

/** The content blocks of the assistant messages of a request, by type. */
export function assistantBlocks(body: ScriptedAnthropicBody): Array<Array<Record<string, unknown>>> {
  return body.messages
    .filter((m) => m.role === "assistant")
    .map((m) => (Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }]));
}
