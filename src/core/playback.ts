/**
 * Playback: a run whose tool calls are answered from a recording instead of running the tools (an
 * eval with `tools: "recorded"`, or a fork). Not to be confused with a Temporal replay, which
 * re-runs workflow code over its own history. The recording, as the workflow carries it: tool
 * calls are answered from it (matched by name and input), backstops' prompts are taken from it.
 * Pure and workflow-safe. (The workflow input's field keeps its recorded name, `replay`.)
 */
import type { ToolCallResult } from "./tool-result.js";
import type { ToolCallStatus } from "./types.js";

/** A tool call of a recorded run: what it was asked and what it came to. */
export interface RecordedToolCall {
  name: string;
  /** The parsed input (the raw text when it was not valid JSON). */
  input: unknown;
  /** What the tool returned, when it returned. */
  output?: unknown;
  status: ToolCallStatus;
  /** Why it was refused, when it was. */
  reason?: string;
  /** Why it failed, when it did. */
  error?: string;
}

/** A backstop that ran in a recorded run, and the prompt it returned (if any). */
export interface RecordedBackstop {
  name: string;
  prompt?: string;
}

/** What a replay does with a tool call the recording does not hold: refuse it (default), run the real tool, or fail the run. */
export type UnmatchedToolCalls = "refuse" | "execute" | "fail";

/** What the `agentRun` workflow gets for a replay (`AgentRunArgs.replay`). */
export interface PlaybackArgs {
  toolCalls: RecordedToolCall[];
  backstops: RecordedBackstop[];
  unmatchedToolCalls: UnmatchedToolCalls;
  /** Indexes of `toolCalls` already answered (carried across continue-as-new). */
  used?: number[];
}

/** Equality of JSON values: objects by their keys, arrays by position. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((item, i) => jsonEqual(item, (b as unknown[])[i]));
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    keysA.length === keysB.length &&
    keysA.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** The recorded calls a replay answers from: each is used once, the first unused one that matches. */
export class PlaybackRecording {
  readonly #used: Set<number>;

  constructor(readonly args: PlaybackArgs) {
    this.#used = new Set(args.used ?? []);
  }

  /** Takes the first unused recorded call with this name and an equal input, if there is one. */
  take(name: string, input: unknown): RecordedToolCall | undefined {
    const index = this.args.toolCalls.findIndex(
      (call, i) => !this.#used.has(i) && call.name === name && jsonEqual(call.input, input),
    );
    if (index < 0) return undefined;
    this.#used.add(index);
    return this.args.toolCalls[index];
  }

  /** The backstop's recorded run, if it ran in the recording. */
  backstop(name: string): RecordedBackstop | undefined {
    return this.args.backstops.find((b) => b.name === name);
  }

  /** The recording with what has been used, for continue-as-new. */
  carry(): PlaybackArgs {
    return { ...this.args, used: [...this.#used].sort((a, b) => a - b) };
  }
}

/** The reason a call not in the recording is refused with. */
export function unmatchedReason(name: string, arguments_: string): string {
  return `The call ${name}(${arguments_.slice(0, 200)}) is not in the recording of this run, so it was not executed (replay with recorded tools).`;
}

/** How `tool.execute` answers a call in a replay: with the recorded outcome, or with a refusal (a call it runs gets no answer). */
export type PlaybackAnswer = { recorded: ToolCallResult } | { unmatched: string };
