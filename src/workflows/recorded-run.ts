/**
 * Recorded runs inside the workflow: a fork starts from a recorded prefix, and a playback answers
 * tool calls and backstops from a recording. Both are chosen by data in the run's input, which
 * histories recorded before them never carry, so their commands are unchanged. Workflow-safe.
 */
import { log, upsertSearchAttributes } from "@temporalio/workflow";
import type { AgentSpec } from "../core/agent-spec.js";
import type { ForkArgs } from "../core/fork-args.js";
import { unmatchedReason, type PlaybackAnswer, type PlaybackRecording } from "../core/playback.js";
import type { RunState } from "../core/run-state.js";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import { parseToolArguments } from "../core/tool-result.js";
import type { RequestedToolCall } from "../core/types.js";
import { UnmatchedToolCallError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";

/** Loads a fork's recorded prefix into a fresh run state (messages are already the run's input). */
export function startFork(run: RunState, fork: ForkArgs, spec: AgentSpec): void {
  run.toolCalls.push(...fork.toolCalls);
  run.trace.push(...fork.trace, { trip: fork.trips, type: "fork", from: fork.from, agent: spec.name });
  run.forkedFrom = fork.from;
  if (spec.searchAttributes)
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.forkedFrom, value: fork.from.workflowId }]);
  log.info("forked", { from: fork.from, trips: fork.trips });
}

/** The playback's answer for one call; with `unmatchedToolCalls: "fail"`, an unmatched call fails the run, naming the call. */
export function playbackAnswer(
  recording: PlaybackRecording | undefined,
  call: RequestedToolCall,
): PlaybackAnswer | undefined {
  if (!recording) return undefined;
  const parsed = parseToolArguments(call);
  const input = parsed instanceof SyntaxError ? call.arguments : parsed;
  const match = recording.take(call.name, input);
  if (match) {
    const { name: _name, input: _input, ...outcome } = match;
    return { recorded: outcome };
  }
  const mode = recording.args.unmatchedToolCalls;
  if (mode === "execute") return undefined;
  const reason = unmatchedReason(call.name, call.arguments);
  if (mode === "fail") throw toFailure(new UnmatchedToolCallError(call.name, call.arguments, reason));
  return { unmatched: reason };
}
