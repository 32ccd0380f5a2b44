/**
 * A scripted Google Gemini API (`POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse`) on loopback, for `@ai-sdk/google`
 * (`createGoogleGenerativeAI({ baseURL })`) or any Gemini client: a candidate's parts (thoughts,
 * text, function calls, with a thought signature), whole or as a stream of partial responses.
 */
import {
  pieces,
  startProviderServer,
  type ScriptedErrorKind,
  type ScriptedProviderHandler,
  type ScriptedProviderOptions,
  type ScriptedProviderRequest,
  type ScriptedProviderServer,
  type ScriptedProviderTurn,
  type ScriptedReasoning,
  type ScriptedTokenUsage,
  type WireAnswer,
  type WireProtocol,
} from "./scripted-provider.js";
import type { StatusTurn } from "./scripted-server.js";
import { defined } from "../core/defined.js";

/** A `generateContent` request body as the client sent it (the fields tests read most). */
export interface ScriptedGeminiBody {
  contents: Array<{ role?: string; parts: Array<Record<string, unknown>> }>;
  systemInstruction?: { parts: Array<Record<string, unknown>> };
  tools?: Array<Record<string, unknown>>;
  toolConfig?: Record<string, unknown>;
  generationConfig?: Record<string, unknown>;
  [field: string]: unknown;
}

/** A running scripted Gemini server; `baseURL` is `<url>/v1beta`. */
export type ScriptedGemini = ScriptedProviderServer<ScriptedGeminiBody>;

/**
 * Starts a scripted Gemini API on 127.0.0.1. With an array, request N gets turn N, and a request
 * past the end gets a 400 `INVALID_ARGUMENT` saying so; with a function, every request gets what it
 * returns. Point `createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey })` at it.
 *
 * The thought signature of the first reasoning block goes where Gemini puts it: on the first
 * function call, else on the answer's last text part (streamed: a last, empty text part), else on
 * the thought itself; a further block's signature stays on its own thought part.
 */
export function startScriptedGemini(
  script: ScriptedProviderTurn[] | ScriptedProviderHandler<ScriptedGeminiBody>,
  options: ScriptedProviderOptions = {},
): Promise<ScriptedGemini> {
  return startProviderServer(gemini, script, options);
}

const ROUTE = /^\/v1beta\/(?:models|tunedModels)\/([^:/]+):(generateContent|streamGenerateContent)$/;

const ERRORS: Record<ScriptedErrorKind, { code: number; status: string; message: string }> = {
  "rate-limit": {
    code: 429,
    status: "RESOURCE_EXHAUSTED",
    message: "You exceeded your current quota, please check your plan and billing details.",
  },
  overloaded: { code: 503, status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  "bad-request": { code: 400, status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." },
  auth: { code: 401, status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials." },
  server: { code: 500, status: "INTERNAL", message: "An internal error has occurred." },
};

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
};

const gemini: WireProtocol<ScriptedGeminiBody> = {
  basePath: "/v1beta",
  matches(method, path) {
    const [route, query = ""] = path.split("?");
    const match = ROUTE.exec(route!);
    return (
      method === "POST" &&
      match !== null &&
      (match[2] === "generateContent" || new URLSearchParams(query).get("alt") === "sse")
    );
  },
  describe(_, path) {
    const match = ROUTE.exec(path.split("?")[0]!)!;
    return { model: match[1]!, stream: match[2] === "streamGenerateContent" };
  },
  errorBody: (message, status) => ({
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
    },
  }),
  error(kind, message, retryAfter): StatusTurn {
    const error = ERRORS[kind];
    const details =
      kind === "rate-limit" && retryAfter !== undefined
        ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfter}s` }]
        : undefined;
    return {
      status: error.code,
      body: {
        error: { code: error.code, message: message ?? error.message, status: error.status, ...defined({ details }) },
      },
    };
  },
  body(answer, request) {
    const parts = [
      ...thoughtParts(answer, false),
      ...(answer.text ? [{ text: answer.text }] : []),
      ...callParts(answer),
    ];
    const signature = firstSignature(answer);
    if (signature !== undefined && !answer.toolCalls.length && answer.text)
      parts[parts.length - 1] = { ...parts[parts.length - 1], thoughtSignature: signature };
    return candidateResponse(parts, answer, request, true);
  },
  events(answer, request) {
    const chunks: Array<Array<Record<string, unknown>>> = [];
    for (const part of thoughtParts(answer, true)) chunks.push([part]);
    for (const text of pieces(answer.text, answer.chunkSize)) chunks.push([{ text }]);
    const signature = firstSignature(answer);
    const last = answer.toolCalls.length
      ? callParts(answer)
      : [{ text: "", ...(signature !== undefined && answer.text ? { thoughtSignature: signature } : {}) }];
    return [
      ...chunks.map((parts) => candidateResponse(parts, answer, request, false)),
      candidateResponse(last, answer, request, true),
    ].map(sseData);
  },
  errorEvent(kind) {
    const error = ERRORS[kind];
    return sseData({ error: { code: error.code, message: error.message, status: error.status } });
  },
};

/** Gemini ends each event with a blank CRLF line. */
function sseData(data: object): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

function signatureOf(reasoning: ScriptedReasoning): string | undefined {
  return reasoning.thoughtSignature ?? reasoning.signature;
}

function firstSignature(answer: WireAnswer): string | undefined {
  const first = answer.reasoning[0];
  return first === undefined ? undefined : signatureOf(first);
}

/**
 * The thought parts: one per reasoning block (streamed: one per piece of its text). The first
 * block's signature is on its last thought only when the answer has neither calls nor text.
 */
function thoughtParts(answer: WireAnswer, streamed: boolean): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  answer.reasoning.forEach((reasoning, n) => {
    const signature = n > 0 || (!answer.toolCalls.length && !answer.text) ? signatureOf(reasoning) : undefined;
    const text = reasoning.redacted ? "" : (reasoning.text ?? "");
    const texts = streamed ? pieces(text, answer.chunkSize) : [text];
    if (texts.length === 0 || (texts.length === 1 && texts[0] === "")) {
      if (signature !== undefined) parts.push({ text: "", thought: true, thoughtSignature: signature });
      return;
    }
    texts.forEach((piece, i) =>
      parts.push({
        text: piece,
        thought: true,
        ...(signature !== undefined && i === texts.length - 1 ? { thoughtSignature: signature } : {}),
      }),
    );
  });
  return parts;
}

/** The function call parts; the first carries the first reasoning block's signature. */
function callParts(answer: WireAnswer): Array<Record<string, unknown>> {
  const signature = firstSignature(answer);
  return answer.toolCalls.map((call, i) => ({
    functionCall: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: call.input },
    ...(i === 0 && signature !== undefined ? { thoughtSignature: signature } : {}),
  }));
}

/** A `GenerateContentResponse` with one candidate; the last one of a stream carries the finish reason and the usage. */
function candidateResponse(
  parts: Array<Record<string, unknown>>,
  answer: WireAnswer,
  request: ScriptedProviderRequest<ScriptedGeminiBody>,
  last: boolean,
) {
  const finishReason =
    answer.finish === "length" ? "MAX_TOKENS" : answer.finish === "content-filter" ? "SAFETY" : "STOP";
  return {
    candidates: [
      {
        content: { parts, role: "model" },
        ...(last ? { finishReason } : {}),
        ...(last && answer.finish === "content-filter"
          ? { safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] }
          : {}),
        index: 0,
      },
    ],
    ...(last && answer.usage ? { usageMetadata: usageOf(answer.usage) } : {}),
    modelVersion: request.model,
    responseId: `scripted-response-${request.index}`,
  };
}

/** Gemini's `promptTokenCount` includes cached tokens; `candidatesTokenCount` excludes thoughts. */
function usageOf(usage: ScriptedTokenUsage) {
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - thoughts,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens === undefined ? {} : { cachedContentTokenCount: usage.cacheReadTokens }),
    ...(usage.reasoningTokens === undefined ? {} : { thoughtsTokenCount: usage.reasoningTokens }),
  };
}
