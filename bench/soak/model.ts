/**
 * The soak's model: the scripted OpenAI-compatible server (src/testing) answering every run by its
 * scenario, read from the `[soak <key> <scenario>]` marker of the conversation, plus the model's
 * faults, which the fault driver switches on: 503 bursts, streams cut after two chunks, and 5 s
 * stalls. Every answer reports usage, so the checker can compare the runs' usage with the server's
 * own count of tokens served (`usageServed` of each request).
 */
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptedTurn,
} from "../../src/testing/index.js";
import type { ModelCallLog } from "./resume.js";

/** The scenarios' names, as they appear in the marker. */
export type ScenarioKind =
  | "tool"
  | "local-tool"
  | "mcp"
  | "backstop"
  | "act-when-asked"
  | "refusal-retry"
  | "output-repair"
  | "typed-failure"
  | "subagent"
  | "handoff"
  | "approval"
  | "stream"
  | "session"
  | "budget";

/** The marker a run's input carries: the run's key and its scenario. */
export const marker = (key: string, scenario: ScenarioKind | "child") => `[soak ${key} ${scenario}]`;
const MARKER = /\[soak (\S+) (\S+)\]/;

type Message = ScriptedRequest["body"]["messages"][number];
const textOf = (m: Message) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));

/** The run key a request belongs to (a sub-agent's requests carry their caller's key). */
export function runKeyOf(request: ScriptedRequest): string | undefined {
  for (const m of request.body.messages) {
    const match = m.role === "user" ? MARKER.exec(textOf(m)) : null;
    if (match) return match[1];
  }
  return undefined;
}

/**
 * The streamed runs' last answer: long enough, and paced (8 characters a chunk, 10 chunks a
 * second: about 2 s), for faults to land while watchers read it.
 */
export const STREAMED_REPLY =
  "Plan updated: lunges instead of squats on Monday and Thursday, three sets of ten, a minute of rest between sets, and a lighter week after the fourth.";

/** What the model answers, by scenario and by how far the conversation got. */
function answer(messages: Message[]): ScriptedTurn {
  const system = messages
    .filter((m) => m.role === "system")
    .map(textOf)
    .join("\n");
  const scenario = messages.map((m) => (m.role === "user" ? MARKER.exec(textOf(m)) : null)).find(Boolean)?.[2] ?? "?";
  const assistants = messages.filter((m) => m.role === "assistant").length;
  const last = messages.at(-1)!;
  const afterTool = last.role === "tool";
  const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
  const note = { note: `soak ${scenario} ${assistants}` };
  if (system.includes("form specialist"))
    return afterTool ? "Form checked: keep the back straight." : call("check_form", note);
  if (system.includes("the closer")) return "All wrapped up: see you next week.";
  if (system.includes("book classes")) return afterTool ? "Your class is booked." : call("book_class", note);
  if (system.includes("plan as JSON")) {
    if (scenario === "typed-failure" || assistants === 0) return "Three sets of lunges, I think.";
    return JSON.stringify({ exercise: "lunges", sets: 3 });
  }
  switch (scenario) {
    case "local-tool":
      return afterTool ? "Sets logged." : call("log_set", note);
    case "act-when-asked":
      // First an answer that only offers the change (re-prompted), then the call, then the reply.
      if (assistants === 0) return "I could swap squats for lunges if you like.";
      return afterTool ? "Swapped squats for lunges." : call("update_plan", note);
    case "refusal-retry":
      // An invalid call (refused), an answer without a tool (the refusal retry), a valid call, the reply.
      if (assistants === 0) return call("update_plan", { note: "" });
      if (assistants === 1) return "I could not change the plan.";
      return afterTool ? "Plan changed after all." : call("update_plan", note);
    case "subagent": {
      const key =
        MARKER.exec(
          messages
            .filter((m) => m.role === "user")
            .map(textOf)
            .join("\n"),
        )?.[1] ?? "?";
      return afterTool
        ? "The specialist checked your form."
        : call("ask_specialist", { message: `${marker(key, "child")} check the squat form` });
    }
    case "handoff":
      return call("transfer_to_soak-closer", {});
    case "approval":
      // A rejected call is refused: the answer after it gets the refusal retry, which the model declines.
      if (afterTool) return "Refund handled.";
      return assistants === 0 ? call("refund", note) : "Understood: no refund then.";
    case "budget":
      return call("update_plan", note); // never done by itself: the budget stops it
    case "stream":
      return afterTool ? { text: STREAMED_REPLY, chunkSize: 8, chunksPerSecond: 10 } : call("update_plan", note);
    default: // tool, backstop, session: a call, then the reply
      return afterTool ? "Plan updated." : call("update_plan", note);
  }
}

/** The usage each answer reports: a function of the request and the answer, so it is reproducible. */
function usageFor(request: ScriptedRequest, turn: ScriptedTurn) {
  const size = JSON.stringify(turn).length;
  return { prompt_tokens: 20 + 3 * request.body.messages.length, completion_tokens: 5 + Math.ceil(size / 8) };
}

/** The model's faults, switched on by the fault driver. */
export interface ModelFaults {
  /** 503 to every request until this time (epoch ms). */
  burstUntil: number;
  /** The next this many streamed answers are cut after two chunks. */
  cuts: number;
  /** The next this many streamed answers stall for 5 s after two chunks, then go on. */
  stalls: number;
  /** What the faults did, by kind: requests answered 503, streams cut, streams stalled. */
  dealt: { "503": number; cut: number; stall: number };
}

/** The soak's model server, its fault switches, and each request's log (for the kill-to-resume figures). */
export interface SoakModel {
  server: ScriptedModel;
  faults: ModelFaults;
  calls: ModelCallLog[];
}

/** What identifies one model call across its retries: the conversation's length and its last message. */
const callOf = (messages: Message[]) => `${messages.length} ${textOf(messages.at(-1) ?? { role: "none" })}`;

export async function startSoakModel(): Promise<SoakModel> {
  const faults: ModelFaults = { burstUntil: 0, cuts: 0, stalls: 0, dealt: { "503": 0, cut: 0, stall: 0 } };
  const calls: ModelCallLog[] = [];
  const server = await startScriptedModel((request) => {
    const log: ModelCallLog = {
      key: runKeyOf(request),
      worker: Number(/soak-worker-(\d+)/.exec(request.authorization ?? "")?.[1]) || undefined,
      streamed: request.body.stream === true,
      call: callOf(request.body.messages),
      arrivedAt: Date.now(),
      served: false,
      faulted: false,
    };
    calls.push(log);
    void request.closed.then(() => {
      log.closedAt = Date.now();
      log.served = request.usageServed !== undefined;
    });
    if (Date.now() < faults.burstUntil) {
      log.faulted = true;
      faults.dealt["503"] += 1;
      return { status: 503, body: { error: { message: "soak: the model is overloaded", type: "server_error" } } };
    }
    const turn = answer(request.body.messages);
    const scripted = typeof turn === "string" ? { text: turn } : turn;
    const usage = usageFor(request, turn);
    if (request.body.stream && faults.cuts > 0) {
      faults.cuts -= 1;
      faults.dealt.cut += 1;
      log.faulted = true;
      return { ...scripted, usage, cutAfterChunks: 2, cutBy: faults.dealt.cut % 2 ? "close" : "reset" };
    }
    if (request.body.stream && faults.stalls > 0) {
      faults.stalls -= 1;
      faults.dealt.stall += 1;
      return { ...scripted, usage, stallAfterChunks: 2, stallForMs: 5_000 };
    }
    return { ...scripted, usage };
  });
  return { server, faults, calls };
}
