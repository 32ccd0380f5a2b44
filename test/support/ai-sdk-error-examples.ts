/**
 * Examples of the model error table's AI SDK rows: each the error the worker's AI SDK path
 * (`callAiSdk`) ends with when a real provider package (`@ai-sdk/anthropic`, `@ai-sdk/openai`)
 * talks to a scripted server that misbehaves that way.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createServer } from "node:net";
import { ai, DEFAULT_LIMITS, type Message } from "../../src/index.js";
import { callAiSdk } from "../../src/models/ai-sdk-call.js";
import type { AiSdkModelReference, AiSdkModelSettings, LanguageModel } from "../../src/models/ai-sdk-model.js";
import {
  startScriptedAnthropic,
  startScriptedModel,
  type ScriptedProviderTurn,
  type ScriptedTurn,
} from "../../src/testing/index.js";

type Example = { name: string; make: () => Promise<unknown> };
const ex = (name: string, make: () => Promise<unknown>): Example => ({ name, make });

/** What `callAiSdk` ends with for the model (the error, or an Error saying it answered). */
async function errorOf(
  model: AiSdkModelReference,
  { streamText = true, messages = [{ role: "user", content: "hi" }] as Message[] } = {},
): Promise<unknown> {
  try {
    const answer = await callAiSdk(model, {
      instructions: undefined,
      messages,
      tools: [],
      output: undefined,
      runSettings: undefined,
      firstTrip: true,
      streamText,
      signal: new AbortController().signal,
      onUsage: () => {},
      limits: { ...DEFAULT_LIMITS },
    });
    return new Error(`expected an error, got an answer: ${JSON.stringify(answer.message)}`);
  } catch (error) {
    return error;
  }
}

/** The error of a call to Claude answered with `turn` by the scripted Anthropic server. */
export function claudeError(
  closers: Array<() => Promise<unknown> | void>,
  turn: ScriptedProviderTurn,
  options: { streamText?: boolean; apiKey?: string | null } = {},
): Promise<unknown> {
  return startScriptedAnthropic([turn]).then((server) => {
    closers.push(() => server.close());
    const provider = createAnthropic({
      baseURL: server.baseURL,
      ...(options.apiKey === null ? {} : { apiKey: options.apiKey ?? "sk-ant-test" }),
    });
    return errorOf(ai.model(provider("claude-sonnet-4-5")), options);
  });
}

/** The error of a call to OpenAI's chat model answered with `turn` by the scripted Chat Completions server. */
function chatError(
  closers: Array<() => Promise<unknown> | void>,
  turn: ScriptedTurn,
  {
    modelId = "gpt-table",
    settings = {},
    messages,
  }: { modelId?: string; settings?: AiSdkModelSettings; messages?: Message[] } = {},
): Promise<unknown> {
  return startScriptedModel([turn]).then((server) => {
    closers.push(() => server.close());
    return errorOf(
      ai.model(createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).chat(modelId) as LanguageModel, settings),
      messages ? { messages } : {},
    );
  });
}

const MESSAGE_START = `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One or more examples per AI SDK row, keyed by the row's `error`. */
export function aiSdkExamples(closers: Array<() => Promise<unknown> | void>): Record<string, Example[]> {
  return {
    "AgentOptionsError: a setting the provider does not support (its unsupported warning)": [
      ex("temperature on OpenAI's o3-mini (the package warns: unsupported)", () =>
        chatError(closers, "Hi.", { modelId: "o3-mini", settings: { temperature: 0.3 } }),
      ),
    ],
    "LoadAPIKeyError / LoadSettingError (AI SDK: no API key or setting for the provider)": [
      ex("@ai-sdk/anthropic without apiKey or ANTHROPIC_API_KEY", async () => {
        const saved = process.env.ANTHROPIC_API_KEY;
        delete process.env.ANTHROPIC_API_KEY;
        try {
          return await claudeError(closers, "Hi.", { apiKey: null });
        } finally {
          if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
        }
      }),
    ],
    "InvalidPromptError / InvalidArgumentError / UnsupportedFunctionalityError (AI SDK: the provider cannot take the request)":
      [
        ex("a file of a type OpenAI's chat API does not take (a zip)", () =>
          chatError(closers, "Hi.", {
            messages: [
              {
                role: "user",
                content: [
                  { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==", filename: "a.zip" } },
                ],
              },
            ],
          }),
        ),
      ],
    "APICallError 400/401/403/404/422 (AI SDK: bad request, auth, no such model)": [
      ex("Anthropic 400 invalid_request_error", () => claudeError(closers, { error: "bad-request" })),
      ex("Anthropic 401 authentication_error", () => claudeError(closers, { error: "auth" }, { streamText: false })),
    ],
    "APICallError 429 (AI SDK: rate limited)": [
      ex("Anthropic 429 rate_limit_error with Retry-After", () =>
        claudeError(closers, { error: "rate-limit", retryAfter: 3 }),
      ),
    ],
    "APICallError 529 (AI SDK: Anthropic overloaded)": [
      ex("Anthropic 529 overloaded_error", () => claudeError(closers, { error: "overloaded" }, { streamText: false })),
    ],
    "APICallError with isRetryable (AI SDK: 408, 409, 5xx, a failed fetch)": [
      ex("Anthropic 500 api_error", () => claudeError(closers, { error: "server" })),
      ex("a refused connection (Cannot connect to API)", async () =>
        errorOf(
          ai.model(
            createAnthropic({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, apiKey: "k" })("claude-sonnet-4-5"),
          ),
        ),
      ),
    ],
    "APICallError without isRetryable (AI SDK: another status)": [
      ex("a 413 from the Chat Completions server", () => chatError(closers, { status: 413 })),
    ],
    "an error part in the answer's stream naming a bad request or auth (AI SDK: invalid_request_error, authentication_error, ...)":
      [
        ex("Anthropic's error event invalid_request_error after 3 events", () =>
          claudeError(closers, { text: "Leg day: squats.", failAfterEvents: 3, failWith: "bad-request" }),
        ),
      ],
    "an error part in the answer's stream (AI SDK: overloaded_error, rate_limit_error, api_error, ...)": [
      ex("Anthropic's error event overloaded_error after 3 events", () =>
        claudeError(closers, { text: "Leg day: squats.", failAfterEvents: 3, failWith: "overloaded" }),
      ),
    ],
    "a stream cut mid-answer (AI SDK: no finish part, or finish reason interrupted / error)": [
      ex("Anthropic's stream ends cleanly after 4 events, without message_stop", () =>
        claudeError(closers, { text: "Leg day: squats and lunges.", cutAfterEvents: 4, cutBy: "end" }),
      ),
    ],
    "the provider's content filter stopped the answer (AI SDK: finish reason content-filter)": [
      ex("Anthropic's stop_reason refusal", () =>
        claudeError(closers, { text: "I can't help with that.", finish: "content-filter" }),
      ),
    ],
    "JSONParseError / TypeValidationError / InvalidResponseDataError (AI SDK: a garbled chunk or answer)": [
      ex("an Anthropic event whose data is not JSON, after message_start", () =>
        claudeError(closers, {
          raw: `${MESSAGE_START}event: content_block_start\ndata: {nope\n\n`,
          contentType: "text/event-stream",
        }),
      ),
    ],
  };
}
