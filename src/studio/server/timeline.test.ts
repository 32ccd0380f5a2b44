import { describe, expect, it } from "vitest";
import { ACTIVITY } from "../../core/constants.js";
import type { TraceEvent } from "../../core/types.js";
import type { HistoryStep, RunHistory } from "./run-history.js";
import { timelineOf } from "./timeline.js";

const T0 = Date.parse("2026-12-06T10:00:00Z");

const model = (trip: number, scheduled: number, closed?: number, more: Partial<HistoryStep> = {}): HistoryStep => ({
  kind: "activity",
  type: ACTIVITY.modelCall,
  summary: `model gpt-test · trip ${trip}`,
  scheduledAt: T0 + scheduled,
  startedAt: T0 + scheduled,
  ...(closed !== undefined ? { closedAt: T0 + closed } : {}),
  attempts: 1,
  outcome: closed === undefined ? "running" : "completed",
  ...more,
});
const tool = (name: string, scheduled: number, closed: number): HistoryStep => ({
  kind: "activity",
  type: ACTIVITY.toolExecute,
  summary: `tool ${name}`,
  scheduledAt: T0 + scheduled,
  startedAt: T0 + scheduled,
  closedAt: T0 + closed,
  attempts: 1,
  outcome: "completed",
});
const run = (steps: HistoryStep[], closed?: number): RunHistory => ({
  startedAt: T0,
  ...(closed !== undefined ? { closedAt: T0 + closed } : {}),
  steps,
});

describe("timelineOf", () => {
  it("shows a step's failed attempts before the attempt that did it, with the last failure", () => {
    const retried = model(1, 100, 2_400, { startedAt: T0 + 2_100, attempts: 3, lastFailure: "503 overloaded" });
    const { steps, durationMs } = timelineOf([run([retried], 2_500)], []);
    expect(durationMs).toBe(2_500);
    expect(steps).toEqual([
      {
        kind: "retry",
        label: "model gpt-test · trip 1: 2 failed attempts",
        trip: 1,
        startMs: 100,
        durationMs: 2_000,
        outcome: "retried after: 503 overloaded",
        state: "failed",
      },
      {
        kind: "model",
        label: "model gpt-test · trip 1",
        trip: 1,
        startMs: 2_100,
        durationMs: 300,
        outcome: "completed",
        state: "ok",
      },
    ]);
  });

  it("a wait for approval runs from the tool's check to the decision, or to now while it waits", () => {
    const history = run([model(1, 0, 200), tool("delete_plan", 250, 300)]);
    const requested: TraceEvent = {
      trip: 1,
      type: "approval",
      tool: "delete_plan",
      callId: "c1",
      outcome: "requested",
    };
    const waiting = timelineOf([history], [requested], { now: T0 + 5_000 });
    expect(waiting.steps.at(-1)).toEqual({
      kind: "approval",
      label: "approval delete_plan",
      trip: 1,
      startMs: 300,
      durationMs: 4_700,
      outcome: "waiting",
      state: "running",
    });
    const decided: TraceEvent = {
      ...requested,
      outcome: "rejected",
      by: "bob",
      decidedAt: new Date(T0 + 1_300).toISOString(),
    };
    const rejected = timelineOf([history], [requested, decided], { now: T0 + 5_000 });
    expect(rejected.steps.find((s) => s.kind === "approval")).toMatchObject({
      durationMs: 1_000,
      outcome: "rejected by bob",
      state: "failed",
    });
  });

  it("marks re-prompts and backstops where their model calls end (before-phase: where the next starts); leaves out a fork's recorded trips", () => {
    const history = run([model(2, 0, 100), model(3, 400, 500)], 600);
    const trace: TraceEvent[] = [
      { trip: 1, type: "reprompt", kind: "act-when-asked", text: "recorded, in the run forked from" },
      { trip: 2, type: "reprompt", kind: "act-when-asked", text: "Call the tool." },
      { trip: 2, type: "backstop", name: "guard", phase: "before", outcome: "prompted" },
    ];
    const { steps } = timelineOf([history], trace, { fromTrip: 2 });
    expect(steps.filter((s) => s.state === "mark")).toEqual([
      {
        kind: "reprompt",
        label: "re-prompt (act-when-asked)",
        trip: 2,
        startMs: 100,
        durationMs: 0,
        outcome: "Call the tool.",
        state: "mark",
      },
      {
        kind: "backstop",
        label: "backstop guard (before)",
        trip: 2,
        startMs: 400,
        durationMs: 0,
        outcome: "prompted",
        state: "mark",
      },
    ]);
  });

  it("a session's runs share one axis from the first run's start; a tool belongs to the trip of the model call before it", () => {
    const first = run([model(1, 0, 100), tool("update_plan", 150, 200)], 300);
    const second: RunHistory = { startedAt: T0 + 1_000, closedAt: T0 + 1_500, steps: [model(1, 1_100, 1_200)] };
    const timeline = timelineOf([first, second], []);
    expect(timeline.durationMs).toBe(1_500);
    expect(timeline.steps.map((s) => [s.kind, s.trip, s.startMs])).toEqual([
      ["model", 1, 0],
      ["tool", 1, 150],
      ["model", 1, 1_100],
    ]);
  });

  it("a call the provider ran inside a model call is a tool mark where that call ended, marked as the provider's", () => {
    const trace: TraceEvent[] = [
      { trip: 1, type: "model.answered", text: "Lunges.", toolCalls: [] },
      { trip: 1, type: "tool.finished", tool: "web_search", callId: "srvtoolu_1", status: "ok", provider: true },
    ];
    const { steps } = timelineOf([run([model(1, 0, 900)], 1_000)], trace);
    expect(steps.map((s) => [s.kind, s.label, s.startMs, s.outcome, s.state])).toEqual([
      ["model", "model gpt-test · trip 1", 0, "completed", "ok"],
      ["tool", "tool web_search (run by the provider)", 900, "ok", "mark"],
    ]);
  });
});
