/**
 * Worker-side, pure: an AI SDK model's answer as the run records it. The stream's parts (or
 * `doGenerate`'s content) become the answer's text, its reasoning parts and its tool calls, each
 * with the provider metadata it came with (the calls the provider ran itself, `providerExecuted`,
 * apart, with the results it reported); usage becomes our `Usage` (cache reads and writes,
 * reasoning tokens); the finish reason and the warnings are kept for the call to judge. Reads the
 * V4, V3 and V2 shapes, which differ in usage (V2: flat counts), finish reason (V2: a string) and
 * warnings (V2: `unsupported-setting`).
 */
import type { ProviderMetadata, ProviderToolCall, ReasoningPart } from "../core/types.js";
import { costOf, type ModelPricing, type Usage } from "../core/usage.js";
import type { AnswerDraft } from "./validate-answer.js";
import { defined } from "../core/defined.js";

/** A warning of the call, in any specification version's shape. */
export type CallWarning =
  | { type: "unsupported"; feature: string; details?: string }
  | { type: "unsupported-setting"; setting: string; details?: string }
  | { type: string; feature?: string; setting?: string; details?: string; message?: string };

/** An AI SDK answer, read. */
export interface AiSdkAnswer {
  draft: AnswerDraft;
  usage?: Usage;
  /** The unified finish reason (`stop`, `length`, `tool-calls`, `content-filter`, `error`, `interrupted`, `other`), and the provider's own. */
  finish?: { reason: string; raw?: string };
  warnings: CallWarning[];
}

type Part = { type: string; [key: string]: unknown };
type Metadata = ProviderMetadata | undefined;

/** Merges provider metadata, provider by provider (later fields win). */
function merge(a: Metadata, b: Metadata): Metadata {
  if (!b) return a;
  if (!a) return b;
  const merged: ProviderMetadata = { ...a };
  for (const [provider, fields] of Object.entries(b)) merged[provider] = { ...a[provider], ...fields };
  return merged;
}

/** Collects a `doStream` answer part by part; `onText` and `onReasoning` see each text and reasoning delta as it arrives. */
export class StreamedAnswer {
  readonly warnings: CallWarning[] = [];
  finish: AiSdkAnswer["finish"];
  usage: unknown;
  #text = "";
  #textMetadata: Metadata;
  readonly #reasoning = new Map<string, ReasoningPart>();
  readonly #toolCalls: AnswerDraft["toolCalls"] = [];
  /** The calls the provider ran, by id, in the order they came. */
  readonly #providerCalls = new Map<string, ProviderToolCall>();

  constructor(
    private readonly onText?: (delta: string) => void,
    private readonly onReasoning?: (delta: string) => void,
  ) {}

  /** Takes one stream part; an `error` part is returned for the caller to throw. */
  add(part: Part): { error: unknown } | undefined {
    const metadata = part.providerMetadata as Metadata;
    switch (part.type) {
      case "stream-start":
        this.warnings.push(...((part.warnings as CallWarning[]) ?? []));
        break;
      case "text-start":
      case "text-end":
        this.#textMetadata = merge(this.#textMetadata, metadata);
        break;
      case "text-delta": {
        const delta =
          typeof part.delta === "string" ? part.delta : typeof part.textDelta === "string" ? part.textDelta : "";
        this.#text += delta;
        this.#textMetadata = merge(this.#textMetadata, metadata);
        if (delta) this.onText?.(delta);
        break;
      }
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end": {
        const id = String(part.id ?? "");
        const reasoning = this.#reasoning.get(id) ?? { text: "" };
        if (part.type === "reasoning-delta" && typeof part.delta === "string" && part.delta !== "") {
          reasoning.text += part.delta;
          this.onReasoning?.(part.delta);
        }
        const merged = merge(reasoning.providerMetadata, metadata);
        if (merged) reasoning.providerMetadata = merged;
        this.#reasoning.set(id, reasoning);
        break;
      }
      case "tool-call":
        if (part.providerExecuted !== true) this.#toolCalls.push(toolCallOf(part));
        else this.#providerCall(part);
        break;
      case "tool-result":
        // Only a provider-run tool has its result in the answer; a preliminary one is replaced by the final.
        this.#providerResult(part);
        break;
      case "finish":
        this.finish = finishOf(part.finishReason);
        this.usage = part.usage;
        break;
      case "error":
        return { error: part.error };
      default: // tool-input deltas (the whole call follows), sources, files, response metadata, raw chunks, pings
    }
    return undefined;
  }

  #providerCall(part: Part): void {
    const id = String(part.toolCallId ?? "");
    const input = part.input ?? part.args;
    const known = this.#providerCalls.get(id);
    this.#providerCalls.set(id, {
      ...known,
      id,
      name: String(part.toolName ?? ""),
      input: typeof input === "string" ? parseJson(input) : (input ?? {}),
      ...defined({ providerMetadata: merge(known?.providerMetadata, part.providerMetadata as Metadata) }),
    });
  }

  #providerResult(part: Part): void {
    const id = String(part.toolCallId ?? "");
    // A result before (or without) its call: the call is recorded with what the result says of it.
    const call = this.#providerCalls.get(id) ?? { id, name: String(part.toolName ?? ""), input: {} };
    const { isError: _, ...rest } = call;
    this.#providerCalls.set(id, {
      ...rest,
      output: part.result ?? null,
      ...(part.isError === true ? { isError: true as const } : {}),
      ...defined({ providerMetadata: merge(call.providerMetadata, part.providerMetadata as Metadata) }),
    });
  }

  /** The answer so far. */
  answer(pricing: ModelPricing | undefined): AiSdkAnswer {
    const reasoning = [...this.#reasoning.values()];
    const providerToolCalls = [...this.#providerCalls.values()];
    const usage = usageFromAiSdk(this.usage, pricing);
    return {
      draft: {
        content: this.#text === "" && this.#toolCalls.length ? null : this.#text,
        toolCalls: this.#toolCalls,
        ...(reasoning.length ? { reasoning } : {}),
        ...defined({ textMetadata: this.#textMetadata }),
        ...(providerToolCalls.length ? { providerToolCalls } : {}),
      },
      ...defined({ usage, finish: this.finish }),
      warnings: this.warnings,
    };
  }
}

/** A `doGenerate` result, read. */
export function generatedAnswer(
  result: { content?: unknown; finishReason?: unknown; usage?: unknown; warnings?: unknown },
  pricing: ModelPricing | undefined,
): AiSdkAnswer {
  const collected = new StreamedAnswer();
  collected.warnings.push(...((result.warnings as CallWarning[]) ?? []));
  ((result.content as Part[]) ?? []).forEach((part, index) => {
    if (part.type === "text")
      collected.add({ type: "text-delta", delta: part.text, providerMetadata: part.providerMetadata });
    else if (part.type === "reasoning")
      collected.add({
        type: "reasoning-delta",
        id: String(index),
        delta: part.text,
        providerMetadata: part.providerMetadata,
      });
    else collected.add(part);
  });
  collected.add({ type: "finish", finishReason: result.finishReason, usage: result.usage });
  return collected.answer(pricing);
}

function toolCallOf(part: Part): AnswerDraft["toolCalls"][number] {
  // V2+ call parts carry `input` (JSON text); older shapes `args`.
  const input = part.input ?? part.args;
  return {
    id: part.toolCallId,
    name: part.toolName,
    arguments: typeof input === "string" ? input : JSON.stringify(input ?? {}),
    ...(part.providerMetadata ? { providerMetadata: part.providerMetadata as ProviderMetadata } : {}),
  };
}

/** JSON text as its value; text that is not JSON as it is. */
function parseJson(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function finishOf(reason: unknown): AiSdkAnswer["finish"] {
  if (typeof reason === "string") return { reason }; // V2
  if (typeof reason === "object" && reason !== null) {
    const { unified, raw } = reason as { unified?: unknown; raw?: unknown };
    return { reason: typeof unified === "string" ? unified : "other", ...(typeof raw === "string" ? { raw } : {}) };
  }
  return undefined;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Our `Usage` from an AI SDK usage (V3/V4: `inputTokens.{total, noCache, cacheRead, cacheWrite}`,
 * `outputTokens.{total, reasoning}`; V2: flat counts), or undefined when none was reported.
 */
export function usageFromAiSdk(usage: unknown, pricing?: ModelPricing): Usage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
  let input: number | undefined,
    output: number | undefined,
    cacheRead: number | undefined,
    cacheWrite: number | undefined,
    reasoning: number | undefined;
  if (typeof inputTokens === "object" && inputTokens !== null) {
    const tokens = inputTokens as { total?: unknown; noCache?: unknown; cacheRead?: unknown; cacheWrite?: unknown };
    cacheRead = count(tokens.cacheRead);
    cacheWrite = count(tokens.cacheWrite);
    const parts = [tokens.noCache, tokens.cacheRead, tokens.cacheWrite].map(count);
    input =
      count(tokens.total) ??
      (parts.some((p) => p !== undefined) ? parts.reduce<number>((sum, p) => sum + (p ?? 0), 0) : undefined);
    const out = (outputTokens ?? {}) as { total?: unknown; reasoning?: unknown };
    output = count(out.total);
    reasoning = count(out.reasoning);
  } else {
    const flat = usage as {
      inputTokens?: unknown;
      outputTokens?: unknown;
      cachedInputTokens?: unknown;
      reasoningTokens?: unknown;
    };
    input = count(flat.inputTokens);
    output = count(flat.outputTokens);
    cacheRead = count(flat.cachedInputTokens);
    reasoning = count(flat.reasoningTokens);
  }
  if (input === undefined && output === undefined) return undefined;
  const result: Usage = {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    totalTokens: (input ?? 0) + (output ?? 0),
  };
  if (cacheRead !== undefined) result.cachedInputTokens = cacheRead;
  if (cacheWrite !== undefined) result.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  if (pricing) result.costUsd = costOf(result, pricing);
  return result;
}
