/** Worker-side: one model call through the `openai` client (`ai.openai()`): a streamed Chat Completions request. */
import { usageFromOpenAI, type OpenAIUsage, type Usage } from "../core/usage.js";
import { streamChatCompletion } from "./chat-stream.js";
import type { ModelCallAnswer, ModelCallRequest } from "./model-call-request.js";
import { openaiClientFor, toChatMessages, toChatTools } from "./openai-client.js";
import type { ModelReference } from "./openai-model.js";
import { mergeModelSettings, requestFields } from "./request-settings.js";
import { outputInstructions, responseFormatOf } from "./structured-output.js";
import { validateAnswer } from "./validate-answer.js";
import { defined } from "../core/defined.js";

/** Sends the conversation to a Chat Completions API and returns the checked answer; rejects with what the client raised. */
export async function callOpenAI(model: ModelReference, request: ModelCallRequest): Promise<ModelCallAnswer> {
  const client = openaiClientFor(model);
  const tools = toChatTools(request.tools);
  const { output } = request;
  let usage: Usage | undefined;
  const reported = (value: OpenAIUsage | null | undefined) => {
    const read = usageFromOpenAI(value, model.settings.pricing);
    if (read) request.onUsage((usage = read));
  };
  const instructions =
    output?.mode === "prompt"
      ? [request.instructions, outputInstructions(output)].filter(Boolean).join("\n\n")
      : request.instructions;
  const completion = await streamChatCompletion(
    client,
    {
      model: model.modelId,
      messages: toChatMessages(instructions, request.messages),
      ...(tools.length ? { tools } : {}),
      ...(output?.mode === "json-schema" ? { response_format: responseFormatOf(output) } : {}),
      ...requestFields(mergeModelSettings(model.settings, request.runSettings), {
        hasTools: tools.length > 0,
        firstTrip: request.firstTrip,
      }),
      stream_options: { include_usage: true },
    },
    {
      signal: request.signal,
      onTextDelta: request.onTextDelta,
      onUsage: reported,
    },
  );
  reported(completion.usage);
  const answer = validateAnswer(completion, { modelId: model.modelId, limits: request.limits });
  if (!answer.ok) throw answer.error;
  return { message: answer.message, ...defined({ usage }), adjustments: answer.adjustments };
}
