/**
 * A fork's starting point: the recorded conversation up to the model call of trip `atTrip`, and
 * the contract state it had used by then. Pure; the client (`fork-run.ts`) computes it from the
 * recorded run, and the `agentRun` workflow starts from it (`ForkArgs`, in `core/fork-args.ts`).
 */
import type { ContractState } from "../core/contract-state.js";
import type { ForkArgs } from "../core/fork-args.js";
import { updatePendingRefusals } from "../contract/decide.js";
import type { Message, RunResult } from "../core/types.js";

/** The fork's prefix of a recorded run: the messages before trip `atTrip`'s answer, and what they used. */
export function forkPrefix(
  recorded: Pick<RunResult, "workflowId" | "runId" | "messages" | "toolCalls" | "trace">,
  atTrip: number,
  input: string,
): { messages: Message[]; fork: ForkArgs } {
  let answers = 0;
  const end = recorded.messages.findIndex((m) => m.role === "assistant" && ++answers === atTrip);
  const messages = end < 0 ? [...recorded.messages] : recorded.messages.slice(0, end);
  const toolCalls = recorded.toolCalls.filter((call) => call.trip < atTrip);
  const trace = recorded.trace.filter((e) => e.trip < atTrip && e.type !== "run.stopped");
  const reprompts = (kind: string) => trace.filter((e) => e.type === "reprompt" && e.kind === kind).length;
  const backstopsRan = [...new Set(trace.flatMap((e) => (e.type === "backstop" ? [e.name] : [])))];
  const contract: ContractState = {
    actionRequest: false, // decided again by the worker's intents when the fork starts
    actReprompts: reprompts("act-when-asked"),
    refusalRetries: reprompts("refusal-retry"),
    outputRepairs: reprompts("output-repair"),
    pendingRefusals: updatePendingRefusals([], toolCalls),
    backstopsRan,
    backstopState: {},
  };
  return {
    messages,
    fork: {
      from: { workflowId: recorded.workflowId, runId: recorded.runId, atTrip },
      trips: atTrip - 1,
      toolCalls,
      trace,
      input,
      contract,
    },
  };
}
