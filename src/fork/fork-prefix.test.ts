import { describe, expect, it } from "vitest";
import { forkPrefix } from "./fork-prefix.js";
import type { RunResult } from "../core/types.js";

/** A recorded run: trip 1 a refused call; a backstop re-prompt and an actWhenAsked re-prompt after trip 2; trip 3 answers. */
const recorded: Pick<RunResult, "workflowId" | "runId" | "messages" | "toolCalls" | "trace"> = {
  workflowId: "coach-1",
  runId: "r-1",
  messages: [
    { role: "user", content: "Swap squats" },
    {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", name: "update_plan", arguments: '{"to":"moonwalks"}' }],
    },
    { role: "tool", toolCallId: "c1", name: "update_plan", content: '{"ok":false,"reason":"no"}' },
    { role: "assistant", content: "Want me to?" },
    { role: "user", content: "Audit." },
    { role: "assistant", content: "Done." },
  ],
  toolCalls: [
    {
      id: "c1",
      name: "update_plan",
      input: { to: "moonwalks" },
      output: { ok: false, reason: "no" },
      status: "refused",
      reason: "no",
      trip: 1,
    },
  ],
  trace: [
    { trip: 0, type: "backstop", name: "injury", phase: "before", outcome: "ran" },
    { trip: 1, type: "model.answered", text: null, toolCalls: ["update_plan"] },
    { trip: 1, type: "tool.finished", tool: "update_plan", callId: "c1", status: "refused", reason: "no" },
    { trip: 2, type: "model.answered", text: "Want me to?", toolCalls: [] },
    { trip: 2, type: "backstop", name: "audit", phase: "after", outcome: "prompted", detail: "Audit." },
    { trip: 2, type: "reprompt", kind: "backstop", text: "Audit.", source: "audit" },
    { trip: 3, type: "model.answered", text: "Done.", toolCalls: [] },
    { trip: 3, type: "run.stopped", stopReason: "answered", detail: "answered" },
  ],
};

describe("forkPrefix(recorded, atTrip): the conversation before trip atTrip's answer and what it had used", () => {
  it("at trip 3: the messages through the re-prompt, the trips before, backstops run, re-prompts spent, refusals pending", () => {
    const { messages, fork } = forkPrefix(recorded, 3, "Swap squats");
    expect(messages).toEqual(recorded.messages.slice(0, 5));
    expect(fork).toMatchObject({
      from: { workflowId: "coach-1", runId: "r-1", atTrip: 3 },
      trips: 2,
      input: "Swap squats",
      toolCalls: recorded.toolCalls,
    });
    expect(fork.trace.map((e) => e.type)).toEqual([
      "backstop",
      "model.answered",
      "tool.finished",
      "model.answered",
      "backstop",
      "reprompt",
    ]);
    expect(fork.contract).toEqual({
      actionRequest: false,
      actReprompts: 0,
      refusalRetries: 0,
      outputRepairs: 0,
      pendingRefusals: [{ tool: "update_plan", reason: "no" }],
      backstopsRan: ["injury", "audit"],
      backstopState: {},
    });
  });

  it("at trip 1: the input (and before-phase backstops), nothing of the trips", () => {
    const { messages, fork } = forkPrefix(recorded, 1, "Swap squats");
    expect(messages).toEqual([{ role: "user", content: "Swap squats" }]);
    expect(fork).toMatchObject({
      trips: 0,
      toolCalls: [],
      contract: { backstopsRan: ["injury"], pendingRefusals: [] },
    });
  });
});
