/**
 * The soak's checker (bench/soak/checker.ts), its report (report.ts) and its seeded plan (plan.ts),
 * on made-up runs: no servers. Each known anomaly (an effect under two keys, a backstop that ran
 * twice, a lost run, a stuck run, a subscriber that saw an event twice or out of order, a
 * subscriber whose text is not the model's or mixes two attempts', usage that does not add up, a
 * memory message stored twice or a completed turn with nothing stored)
 * must come out as its violation with the right counts, and clean runs as none; the same seed must
 * give the same mix and fault schedule, Redis faults included. The soak itself (`npm run soak`)
 * needs the stack and minutes of CPU: CI runs it (.ci/soak.sh).
 */
import { temporal } from "@temporalio/proto";
import { describe, expect, it } from "vitest";
import {
  check,
  type DurableEvent,
  type RunSource,
  type StoredMemoryMessage,
  type Verdict,
  type Violation,
} from "../bench/soak/checker.js";
import { FAULT_MIX, REDIS_FAULT_MIX, type Fault } from "../bench/soak/faults.js";
import type { LedgerRow } from "../bench/soak/ledger.js";
import { marker, type ScenarioKind } from "../bench/soak/model.js";
import { planSoak } from "../bench/soak/plan.js";
import { buildReport, formatReport } from "../bench/soak/report.js";
import { killToResume, type ModelCallLog } from "../bench/soak/resume.js";
import {
  inputOf,
  MEMORY_SCENARIOS,
  type RunRecord,
  type SeenDelta,
  type SubscriberLog,
} from "../bench/soak/scenarios.js";
import type { RunResult, ToolCallRecord, TraceEvent } from "../src/index.js";
import type { ScriptedRequest } from "../src/testing/index.js";

/** One run as the checker sees it: what the client saw, the ledger's rows, the model's requests, and what the server has. */
interface FakeRun {
  record: RunRecord;
  rows: LedgerRow[];
  requests: ScriptedRequest[];
  status: "running" | "closed" | "not found";
  /** Activities of the run's history: a type, the attempt that completed it (1 unless retried), how many times it completed. */
  activities: Array<{ type: string; attempt?: number; completions?: number }>;
  /** Sub-agents' histories, by workflow id. */
  children: Record<string, Array<{ type: string; attempt?: number }>>;
  events: DurableEvent[];
  /** What the memory store holds of the run (runs with a user). */
  memory?: StoredMemoryMessage[];
}

/** A history from activities: each scheduled, started (at its attempt) and completed. */
function history(activities: FakeRun["activities"]): temporal.api.history.v1.IHistory {
  const events: Array<Record<string, unknown>> = [];
  let id = 0;
  for (const { type, attempt = 1, completions = 1 } of activities) {
    const scheduled = ++id;
    events.push({ eventId: scheduled, activityTaskScheduledEventAttributes: { activityType: { name: type } } });
    events.push({ eventId: ++id, activityTaskStartedEventAttributes: { scheduledEventId: scheduled, attempt } });
    for (let i = 0; i < completions; i++)
      events.push({ eventId: ++id, activityTaskCompletedEventAttributes: { scheduledEventId: scheduled } });
  }
  return temporal.api.history.v1.History.fromObject({ events });
}

/** The server side of the fake runs. */
function source(runs: FakeRun[]): RunSource {
  const byId = new Map(runs.map((run) => [run.record.workflowId, run]));
  const children = new Map(runs.flatMap((run) => Object.entries(run.children)));
  return {
    status: async (workflowId) => byId.get(workflowId)?.status ?? "not found",
    history: async (workflowId) => history(byId.get(workflowId)?.activities ?? children.get(workflowId) ?? []),
    events: async (workflowId) => byId.get(workflowId)?.events ?? [],
  };
}

const checkRuns = (runs: FakeRun[]): Promise<Verdict> =>
  check(
    runs.map((r) => r.record),
    runs.flatMap((r) => r.rows),
    runs.flatMap((r) => r.requests),
    source(runs),
    runs.flatMap((r) => r.memory ?? []),
  );

let requestIndex = 0;
/** A model request of the run `key` that the server answered with `tokens` tokens of usage. */
function served(key: string, scenario: ScenarioKind | "child", tokens: number): ScriptedRequest {
  return {
    index: requestIndex++,
    body: {
      model: "soak-model",
      messages: [
        { role: "system", content: "You are the soak coach." },
        { role: "user", content: `${marker(key, scenario)} please` },
      ],
    },
    authorization: undefined,
    closed: Promise.resolve(),
    usageServed: { prompt_tokens: tokens - 10, completion_tokens: 10, total_tokens: tokens },
  };
}

const row = (key: string, workflowId: string, kind: LedgerRow["kind"] = "tool", execution = 1): LedgerRow => ({
  key,
  execution,
  kind,
  workflowId,
  pid: 1,
  at: new Date(0),
});
const usage = (total: number) => ({ inputTokens: total - 10, outputTokens: 10, totalTokens: total });
const ok = (id: string, name: string, trip = 1): ToolCallRecord => ({
  id,
  name,
  input: { note: "soak" },
  output: { ok: true },
  status: "ok",
  trip,
});
const REPLY = "Plan updated: lunges on Monday and Thursday.";
/** A streamed run's durable events: a tool call's trip (no text), then the answer REPLY. */
const STREAM: DurableEvent[] = [
  { offset: 0, type: "run.started" },
  { offset: 1, type: "model.answered", trip: 1, text: null },
  { offset: 2, type: "tool.finished" },
  { offset: 3, type: "model.answered", trip: 2, text: REPLY },
  { offset: 4, type: "run.finished" },
];
/** `text` in deltas of `size` characters, of trip 2's `attempt`, on `connection`, after `afterEvents` events. */
const deltasOf = (text: string, afterEvents: number, connection: number, attempt = 1, size = 8): SeenDelta[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => ({
    afterEvents,
    connection,
    trip: 2,
    attempt,
    text: text.slice(i * size, (i + 1) * size),
  }));

let runCount = 0;
/** A run of `scenario` that went as its script says: every check passes on it. */
function cleanRun(scenario: ScenarioKind): FakeRun {
  const key = `r${String(runCount++).padStart(4, "0")}`;
  const workflowId = `${scenario === "typed-failure" ? "soak-typed" : "soak-coach"}-${key}`;
  const answers = scenario === "budget" ? [40, 45, 40] : scenario === "act-when-asked" ? [30, 40, 35] : [40, 30];
  const childAnswers = scenario === "subagent" ? [20, 15] : [];
  const trace: TraceEvent[] = answers.map((tokens, i) => ({
    trip: i + 1,
    type: "model.answered",
    text: null,
    toolCalls: [],
    usage: usage(tokens),
  }));
  const toolCalls: ToolCallRecord[] = [];
  const rows: LedgerRow[] = [];
  const activities: FakeRun["activities"] = answers.map(() => ({ type: "model.call" }));
  const children: FakeRun["children"] = {};
  const effectTool = scenario === "local-tool" ? "log_set" : "update_plan";
  const calls = scenario === "budget" ? 3 : scenario === "subagent" || scenario === "typed-failure" ? 0 : 1;
  for (let trip = 1; trip <= calls; trip++) {
    toolCalls.push(ok(`call_${trip}`, effectTool, trip));
    rows.push(
      row(`${workflowId}/trip-${trip}/call_${trip}`, workflowId, scenario === "local-tool" ? "local-tool" : "tool"),
    );
    activities.push({ type: "tool.execute" });
  }
  if (scenario === "act-when-asked")
    trace.push({ trip: 1, type: "reprompt", kind: "act-when-asked", text: "Make the change with update_plan." });
  if (scenario === "backstop") {
    trace.unshift({ trip: 1, type: "backstop", name: "injury-capture", phase: "before", outcome: "prompted" });
    rows.push(row(`${workflowId}/backstop/injury-capture`, workflowId, "backstop"));
    activities.push({ type: "backstop.run" });
  }
  if (scenario === "subagent") {
    const child = `${workflowId}/trip-1/call_1`;
    toolCalls.push({ ...ok("call_1", "ask_specialist"), subAgent: "soak-specialist", childWorkflowId: child });
    trace.push({
      trip: 1,
      type: "subagent.started",
      tool: "ask_specialist",
      callId: "call_1",
      agent: "soak-specialist",
      workflowId: child,
    });
    rows.push(row(`${child}/trip-1/call_c1`, child, "child-tool"));
    children[child] = [{ type: "model.call" }, { type: "tool.execute" }, { type: "model.call" }];
  }
  const total = [...answers, ...childAnswers].reduce((a, b) => a + b, 0);
  const result: RunResult = {
    workflowId,
    runId: "run-1",
    reply: "Plan updated.",
    stopReason: scenario === "budget" ? "budget" : "answered",
    messages: [],
    toolCalls,
    trips: answers.length,
    trace,
    usage: { ...usage(total), modelCalls: answers.length + childAnswers.length },
    agent: "soak-coach",
  };
  const record: RunRecord = { key, scenario, workflowId, dueMs: 0, retried: [], startedAt: 0, endedAt: 1_000 };
  if (scenario === "typed-failure")
    record.error = {
      name: "OutputValidationError",
      message: "the output did not match its schema",
      usage: { ...usage(total), modelCalls: answers.length },
    };
  else record.results = [result];
  const events = scenario === "stream" ? STREAM : [];
  if (scenario === "stream") record.subscribers = [subscriber([0, 1, 2, 3, 4]), subscriber([0, 1, 2, 3, 4], "steady")];
  const requests = [
    ...answers.map((t) => served(key, scenario, t)),
    ...childAnswers.map((t) => served(key, "child", t)),
  ];
  return { record, rows, requests, status: "closed", activities, children, events };
}

/** `run` given a user, as memory keeps it: a recall in its trace, its input and reply stored (turn 0), memory.remember once. */
function withMemory(run: FakeRun): FakeRun {
  const { record } = run;
  record.user = "soak-user-1";
  record.results![0]!.trace.unshift({ trip: 1, type: "memory.recalled", user: "soak-user-1", recalled: [] });
  run.activities.push({ type: "memory.recall" }, { type: "memory.remember" });
  const stored = { user: "soak-user-1", session: record.workflowId, run: record.workflowId, turn: 0 };
  run.memory = [
    { ...stored, index: 0, role: "user", text: inputOf(record) },
    { ...stored, index: 2, role: "assistant", text: "Plan updated." },
  ];
  return run;
}

/**
 * What a subscriber saw: these offsets of the STREAM (a "resuming" one on a new stream after every
 * second event, two disconnects; a "steady" one on one stream), a pause, and REPLY's deltas just
 * before trip 2's model.answered, on its stream.
 */
function subscriber(offsets: number[], name: SubscriberLog["name"] = "resuming"): SubscriberLog {
  const eventConnections = offsets.map((_, i) => (name === "steady" ? 1 : Math.min(3, 1 + Math.floor(i / 2))));
  const answeredAt = offsets.indexOf(3);
  return {
    name,
    offsets,
    types: offsets.map((o) => STREAM[o]!.type),
    eventConnections,
    deltas: answeredAt < 0 ? [] : deltasOf(REPLY, answeredAt, eventConnections[answeredAt]!),
    connections: Math.max(...eventConnections),
    disconnects: name === "steady" ? 0 : 2,
    pauses: 1,
    errors: [],
    pausedUntil: 0,
  };
}

const CLEAN: ScenarioKind[] = [
  "tool",
  "local-tool",
  "backstop",
  "act-when-asked",
  "subagent",
  "stream",
  "budget",
  "typed-failure",
];
const cleanRuns = () => CLEAN.map(cleanRun);

/** The checker's verdict on the clean runs plus `bad`: its violations must be `expected`, all about `bad`. */
async function verdictWith(
  bad: FakeRun,
  expected: Array<{ check: Violation["check"]; detail: RegExp }>,
): Promise<Verdict> {
  const verdict = await checkRuns([...cleanRuns(), bad]);
  expect(verdict.violations).toEqual(
    expected.map(({ check, detail }) => ({ run: bad.record.workflowId, check, detail: expect.stringMatching(detail) })),
  );
  return verdict;
}

describe("the soak's checker", () => {
  it("finds no violation in runs that went as their scripts say, and counts them", async () => {
    const runs = cleanRuns();
    const verdict = await checkRuns(runs);
    expect(verdict.violations).toEqual([]);
    expect(verdict).toMatchObject({ completed: CLEAN.length, lost: 0, stuck: 0, duplicateEffects: 0 });
    const rows = runs.flatMap((r) => r.rows).length;
    expect(verdict.effects).toBe(rows);
    expect(verdict.executions).toBe(rows);
    const servedTokens = runs.flatMap((r) => r.requests).reduce((sum, r) => sum + r.usageServed!.total_tokens!, 0);
    expect(verdict.tokens).toEqual({ served: servedTokens, counted: servedTokens, servedToLostAttempts: 0 });
  });

  it("counts executions past one per key, which are not violations (an attempt lost with its worker runs again under the same key)", async () => {
    const run = cleanRun("tool");
    run.rows.push({ ...run.rows[0]!, execution: 2, pid: 2 });
    const verdict = await verdictWith(run, []);
    expect(verdict.duplicateEffects).toBe(0);
    expect(verdict.executions - verdict.effects).toBe(1);
  });

  describe("effects", () => {
    it("a call whose effect happened under two keys: an effects violation, one duplicate", async () => {
      const run = cleanRun("tool");
      run.rows.push(row(`${run.record.workflowId}/trip-2/call_1`, run.record.workflowId));
      const verdict = await verdictWith(run, [{ check: "effects", detail: /the call call_1 has 2 effects/ }]);
      expect(verdict.duplicateEffects).toBe(1);
      expect(verdict.completed).toBe(CLEAN.length + 1); // the run ended as expected; its effects did not
    });

    it("a sub-agent's tool effect twice: an effects violation, one duplicate", async () => {
      const run = cleanRun("subagent");
      const child = `${run.record.workflowId}/trip-1/call_1`;
      run.rows.push(row(`${child}/trip-2/call_c2`, child, "child-tool"));
      const verdict = await verdictWith(run, [{ check: "effects", detail: /2 sub-agent tool effects, expected 1/ }]);
      expect(verdict.duplicateEffects).toBe(1);
    });

    it("an effect of no recorded call: an effects violation, one duplicate", async () => {
      const run = cleanRun("tool");
      run.rows.push(row(`${run.record.workflowId}/trip-1/call_9`, run.record.workflowId));
      const verdict = await verdictWith(run, [{ check: "effects", detail: /effects of no recorded call: .*call_9/ }]);
      expect(verdict.duplicateEffects).toBe(1);
    });

    it("an ok call with no effect: an effects violation, no duplicate", async () => {
      const run = cleanRun("tool");
      run.rows = [];
      const verdict = await verdictWith(run, [{ check: "effects", detail: /the ok call call_1 has no ledger row/ }]);
      expect(verdict.duplicateEffects).toBe(0);
    });

    it("a ledger row of no run: an effects violation", async () => {
      const runs = cleanRuns();
      const verdict = await check(
        runs.map((r) => r.record),
        [...runs.flatMap((r) => r.rows), row("soak-coach-r9999/trip-1/call_1", "soak-coach-r9999")],
        runs.flatMap((r) => r.requests),
        source(runs),
      );
      expect(verdict.violations).toEqual([
        { check: "effects", detail: expect.stringMatching(/ledger row of no run: soak-coach-r9999\/trip-1\/call_1/) },
      ]);
    });
  });

  describe("backstops", () => {
    it("a backstop that ran twice (the history's backstop.run completed twice, the trace has two runs): two backstop violations", async () => {
      const run = cleanRun("backstop");
      run.activities.find((a) => a.type === "backstop.run")!.completions = 2;
      run.record.results![0]!.trace.unshift({
        trip: 1,
        type: "backstop",
        name: "injury-capture",
        phase: "before",
        outcome: "ran",
      });
      run.rows.push({ ...run.rows.find((r) => r.kind === "backstop")!, execution: 2 });
      const verdict = await verdictWith(run, [
        { check: "backstop", detail: /backstop\.run completed 2 times in the history/ },
        { check: "backstop", detail: /the backstop ran 2 times \(trace\)/ },
      ]);
      expect(verdict.duplicateEffects).toBe(0); // one key, two executions
      expect(verdict.executions - verdict.effects).toBe(1);
    });

    it("a backstop effect under a second key: a backstop violation, one duplicate", async () => {
      const run = cleanRun("backstop");
      run.rows.push(row(`${run.record.workflowId}/backstop/injury-capture-again`, run.record.workflowId, "backstop"));
      const verdict = await verdictWith(run, [{ check: "backstop", detail: /2 backstop effects, expected 1/ }]);
      expect(verdict.duplicateEffects).toBe(1);
    });
  });

  describe("ends", () => {
    it("a run the server does not know: lost, and not completed", async () => {
      const run = cleanRun("tool");
      run.status = "not found";
      const verdict = await verdictWith(run, [
        { check: "lost", detail: /the server has no run .* \(the client got a result\)/ },
      ]);
      expect(verdict).toMatchObject({ lost: 1, stuck: 0, completed: CLEAN.length });
    });

    it("a run still running after the drain: stuck, and not completed", async () => {
      const run = cleanRun("tool");
      run.status = "running";
      delete run.record.results;
      const verdict = await verdictWith(run, [{ check: "stuck", detail: /still running at the end \(tool/ }]);
      expect(verdict).toMatchObject({ lost: 0, stuck: 1, completed: CLEAN.length });
    });

    it("a run that ended other than its scenario expects: an end violation, not completed", async () => {
      const run = cleanRun("tool");
      run.record.results![0]!.stopReason = "max-trips";
      const verdict = await verdictWith(run, [{ check: "end", detail: /stopReason max-trips, expected answered/ }]);
      expect(verdict.completed).toBe(CLEAN.length);
    });
  });

  describe("streams", () => {
    it("a subscriber that saw an event twice: a stream violation", async () => {
      const run = cleanRun("stream");
      run.record.subscribers = [subscriber([0, 1, 2, 2, 3, 4])];
      await verdictWith(run, [{ check: "stream", detail: /saw offsets 0,1,2,2,3,4; the stream has 0,1,2,3,4/ }]);
    });

    it("a subscriber that saw events out of order: a stream violation", async () => {
      const run = cleanRun("stream");
      run.record.subscribers = [subscriber([0, 2, 1, 3, 4])];
      await verdictWith(run, [{ check: "stream", detail: /saw offsets 0,2,1,3,4; the stream has 0,1,2,3,4/ }]);
    });

    it("a subscriber that missed the end: two stream violations (a missing event, no run.finished)", async () => {
      const run = cleanRun("stream");
      run.record.subscribers = [subscriber([0, 1, 2, 3])];
      await verdictWith(run, [
        { check: "stream", detail: /saw offsets 0,1,2,3; the stream has 0,1,2,3,4/ },
        { check: "stream", detail: /last event is model\.answered, not run\.finished/ },
      ]);
    });
  });

  describe("text", () => {
    /** STREAM with trip 2's first attempt failed mid-answer and retried: its trip.retry at offset 3. */
    const RETRIED: DurableEvent[] = [
      ...STREAM.slice(0, 3),
      { offset: 3, type: "trip.retry", trip: 2, attempt: 2 },
      { offset: 4, type: "model.answered", trip: 2, text: REPLY },
      { offset: 5, type: "run.finished" },
    ];
    /** A streamed run whose one subscriber saw every event of `events` (on stream 1, or `eventConnections`) and these deltas. */
    function seenRun(events: DurableEvent[], deltas: SeenDelta[], eventConnections = events.map(() => 1)): FakeRun {
      const run = cleanRun("stream");
      run.events = events;
      run.record.subscribers = [
        {
          ...subscriber([], "steady"),
          offsets: events.map((e) => e.offset),
          types: events.map((e) => e.type),
          eventConnections,
          deltas,
          connections: Math.max(...eventConnections),
        },
      ];
      return run;
    }

    it("an answer sent again from its start on a new stream (after a lost one), and a retried attempt's text after its trip.retry: no violation", async () => {
      const again = seenRun(STREAM, [...deltasOf(REPLY.slice(0, 16), 3, 1), ...deltasOf(REPLY, 3, 2)], [1, 1, 1, 2, 2]);
      const retried = seenRun(RETRIED, [...deltasOf("Plan upd", 3, 1), ...deltasOf(REPLY, 4, 1, 2)]);
      const verdict = await checkRuns([...cleanRuns(), again, retried]);
      expect(verdict.violations).toEqual([]);
    });

    it("a chunk lost, or a chunk twice on one stream: the text is not the model's", async () => {
      const chunks = deltasOf(REPLY, 3, 1);
      await verdictWith(seenRun(STREAM, [...chunks.slice(0, 2), ...chunks.slice(3)]), [
        {
          check: "text",
          detail:
            /steady subscriber: trip 2's text "Plan updated: lu.*" \(attempt 1, stream 1\) is not the model's "Plan updated/,
        },
      ]);
      await verdictWith(seenRun(STREAM, [chunks[0]!, ...chunks]), [
        {
          check: "text",
          detail: /trip 2's text "Plan updPlan updated: .*" \(attempt 1, stream 1\) is not the model's/,
        },
      ]);
    });

    it("a retried attempt's text before its trip.retry: a text violation, and the answer's text missing", async () => {
      await verdictWith(seenRun(RETRIED, deltasOf(REPLY, 3, 1, 2)), [
        { check: "text", detail: /text of trip 2's attempt 2 before its trip\.retry/ },
        { check: "text", detail: /trip 2's text "" \(attempt 2, stream 1\) is not the model's/ },
      ]);
    });

    it("the failed attempt's text after the new attempt's trip.retry: two attempts mixed, once however many deltas", async () => {
      const second = deltasOf(REPLY, 4, 1, 2);
      const first = deltasOf("Plan updated: lunges", 4, 1, 1);
      await verdictWith(seenRun(RETRIED, [...deltasOf("Plan upd", 3, 1), second[0]!, ...first, ...second.slice(1)]), [
        { check: "text", detail: /text of trip 2's attempt 1 after attempt 2's trip\.retry: two attempts mixed/ },
      ]);
    });

    it("text of a trip after its model.answered: a text violation", async () => {
      await verdictWith(seenRun(STREAM, [...deltasOf(REPLY, 3, 1), ...deltasOf("again", 4, 1)]), [
        { check: "text", detail: /text of trip 2 \(attempt 1\) after its model\.answered/ },
      ]);
    });

    it("the text on an earlier stream only, none on the stream that brought model.answered: a text violation", async () => {
      await verdictWith(seenRun(STREAM, deltasOf(REPLY, 3, 1), [1, 1, 1, 2, 2]), [
        { check: "text", detail: /trip 2's text "" \(attempt 1, stream 2\) is not the model's/ },
      ]);
    });
  });

  describe("usage", () => {
    it("a run that counted fewer tokens than the server served, with no failed attempt: a usage violation", async () => {
      const run = cleanRun("tool");
      run.record.results![0]!.usage!.totalTokens -= 7;
      const verdict = await verdictWith(run, [
        { check: "usage", detail: /counted 63 tokens, the model server served 70.* its 0 failed model\.call attempts/ },
      ]);
      expect(verdict.tokens.servedToLostAttempts).toBe(0);
    });

    it("a run that counted more tokens than the server served: a usage violation, even with failed attempts", async () => {
      const run = cleanRun("tool");
      run.activities[0]!.attempt = 2;
      run.record.results![0]!.usage!.totalTokens += 30;
      await verdictWith(run, [{ check: "usage", detail: /counted 100 tokens, the model server served 70/ }]);
    });

    it("a shortfall of exactly one served answer, with a model.call attempt lost: the documented bound, no violation", async () => {
      const run = cleanRun("tool");
      run.requests.push(served(run.record.key, "tool", 40)); // answered to an attempt whose worker was killed
      run.activities[0]!.attempt = 2;
      const verdict = await verdictWith(run, []);
      expect(verdict.tokens.servedToLostAttempts).toBe(40);
      expect(verdict.tokens.served - verdict.tokens.counted).toBe(40);
    });

    it("a shortfall that no set of lost attempts' answers adds up to: a usage violation", async () => {
      const run = cleanRun("tool");
      run.requests.push(served(run.record.key, "tool", 40));
      run.activities[0]!.attempt = 2;
      run.record.results![0]!.usage!.totalTokens -= 1;
      await verdictWith(run, [
        {
          check: "usage",
          detail: /counted 69 tokens, the model server served 110.* its 1 failed model\.call attempts/,
        },
      ]);
    });

    it("a sub-agent's lost attempt counts toward the bound (the child's history is read)", async () => {
      const run = cleanRun("subagent");
      run.requests.push(served(run.record.key, "child", 20));
      const verdictWithout = await checkRuns([run]);
      expect(verdictWithout.violations.map((v) => v.check)).toEqual(["usage"]);
      run.children[`${run.record.workflowId}/trip-1/call_1`]![0]!.attempt = 2;
      const verdict = await checkRuns([run]);
      expect(verdict.violations).toEqual([]);
      expect(verdict.tokens.servedToLostAttempts).toBe(20);
    });
  });

  it("a budget run that started a trip past its budget: a budget violation", async () => {
    const run = cleanRun("budget");
    const trace = run.record.results![0]!.trace;
    trace.push({ trip: 4, type: "model.answered", text: null, toolCalls: [], usage: usage(40) }); // a 4th trip, started with 125 of 100 used
    run.requests.push(served(run.record.key, "budget", 40));
    run.record.results![0]!.usage!.totalTokens += 40;
    await verdictWith(run, [
      { check: "budget", detail: /a trip started with 125 tokens used of a 100 budget/ },
      { check: "budget", detail: /used 165 of 100, more than one trip \(40\) over/ },
    ]);
  });

  it("re-prompts past their limit or other than the script makes: re-prompt violations", async () => {
    const run = cleanRun("act-when-asked");
    run.record.results![0]!.trace.push({ trip: 2, type: "reprompt", kind: "act-when-asked", text: "Again." });
    await verdictWith(run, [
      { check: "reprompts", detail: /2 act-when-asked re-prompts, over the limit of 1/ },
      { check: "reprompts", detail: /2 act-when-asked re-prompts, the script makes 1/ },
    ]);
  });

  it("counts each anomaly once when several runs have them together", async () => {
    const duplicated = cleanRun("tool");
    duplicated.rows.push(row(`${duplicated.record.workflowId}/trip-2/call_1`, duplicated.record.workflowId));
    const childTwice = cleanRun("subagent");
    childTwice.rows.push(
      row(
        `${childTwice.record.workflowId}/trip-1/call_1/trip-2/call_c2`,
        `${childTwice.record.workflowId}/trip-1/call_1`,
        "child-tool",
      ),
    );
    const lost = { ...cleanRun("stream"), status: "not found" as const };
    const stuck = { ...cleanRun("backstop"), status: "running" as const };
    const verdict = await checkRuns([...cleanRuns(), duplicated, childTwice, lost, stuck]);
    expect(verdict).toMatchObject({ completed: CLEAN.length + 2, lost: 1, stuck: 1, duplicateEffects: 2 });
    expect(verdict.violations.map((v) => v.check).sort()).toEqual(["effects", "effects", "lost", "stuck"]);
  });
  describe("memory", () => {
    it("a run with a user whose turn is stored once: no violation, and counted", async () => {
      const verdict = await verdictWith(withMemory(cleanRun("tool")), []);
      expect(verdict.memory).toEqual({ runs: 1, turns: 1, stored: 2, duplicates: 0, lostTurns: 0 });
    });

    it("a message stored twice (one run, turn and index): a memory violation, one duplicate", async () => {
      const run = withMemory(cleanRun("tool"));
      run.memory!.push({ ...run.memory![1]! });
      const verdict = await verdictWith(run, [
        { check: "memory", detail: /^message \(turn 0, index 2\) stored twice$/ },
      ]);
      expect(verdict.memory).toMatchObject({ stored: 3, duplicates: 1 });
    });

    it("a completed turn with nothing stored: a memory violation, one lost turn", async () => {
      const run = withMemory(cleanRun("local-tool"));
      run.memory = [];
      const verdict = await verdictWith(run, [
        { check: "memory", detail: /^turn 1 completed, but none of its messages is stored$/ },
      ]);
      expect(verdict.memory).toMatchObject({ lostTurns: 1 });
    });

    it("a reply stored as another text, memory.remember completed twice, or no recall: memory violations", async () => {
      const run = withMemory(cleanRun("tool"));
      run.memory![1]!.text = "Plan upd";
      run.activities.push({ type: "memory.remember" });
      run.record.results![0]!.trace.shift();
      await verdictWith(run, [
        { check: "memory", detail: /^turn 1 recalled nothing/ },
        { check: "memory", detail: /^turn 1's last stored message is assistant "Plan upd", not the reply$/ },
        { check: "memory", detail: /^memory.remember completed 2 times for 1 turn\(s\)$/ },
      ]);
    });

    it("messages stored for a run without a user: a memory violation", async () => {
      const run = cleanRun("tool");
      run.memory = [{ ...withMemory(cleanRun("tool")).memory![0]!, run: run.record.workflowId }];
      await verdictWith(run, [
        { check: "memory", detail: /^1 message\(s\) stored for soak-coach-r\d+, a run without a user$/ },
      ]);
    });
  });
});

describe("the soak's report", () => {
  const verdict: Verdict = {
    completed: 9,
    lost: 1,
    stuck: 0,
    effects: 8,
    executions: 10,
    duplicateEffects: 1,
    tokens: { served: 500, counted: 460, servedToLostAttempts: 40 },
    memory: { runs: 2, turns: 4, stored: 8, duplicates: 0, lostTurns: 0 },
    violations: [
      { run: "soak-coach-r0001", check: "effects", detail: "the call call_1 has 2 effects: a, b" },
      { run: "soak-coach-r0002", check: "lost", detail: "the server has no run soak-coach-r0002" },
    ],
  };
  const fault = (kind: Fault["kind"], injectedMs?: number, repairedMs?: number): Fault => ({
    kind,
    dueMs: injectedMs ?? 0,
    durationMs: 1_000,
    ...(injectedMs === undefined ? {} : { injectedMs, repairedMs }),
  });
  const faults = [
    fault("worker-kill", 1_000, 3_000),
    fault("worker-kill", 4_000, 9_500),
    fault("model-503", 2_000, 5_000),
    fault("mcp-kill"),
    fault("postgres-stop", 20_000, 25_000),
  ];
  // Killed at 1,000 and 4,000 ms: two calls cut, asked again 3,600 and 6,000 ms after their kills.
  const began = 1_000_000;
  const call = (key: string, arrivedMs: number, closedMs: number, more: Partial<ModelCallLog> = {}): ModelCallLog => ({
    key,
    worker: 101,
    streamed: true,
    call: `3 ask ${key}`,
    arrivedAt: began + arrivedMs,
    closedAt: began + closedMs,
    served: false,
    faulted: false,
    ...more,
  });
  const calls = [
    call("r1", 500, 1_050), // cut by the first kill
    call("r2", 800, 1_200, { served: true }), // answered whole
    call("r1", 4_600, 6_000, { served: true }), // r1's retry
    call("r3", 3_000, 4_050), // cut by the second kill
    call("r4", 3_900, 4_100, { faulted: true }), // cut by the model's own fault
    call("r5", 6_000, 9_000), // a client abort no kill explains
    call("r3", 10_000, 10_500, { served: true }), // r3's retry
  ];
  const delta = (attempt: number, atMs: number): SeenDelta => ({
    afterEvents: 4,
    connection: 1,
    trip: 2,
    attempt,
    text: "Plan",
    at: began + atMs,
  });
  const watcher = (deltas: SeenDelta[]) => ({ deltas }) as SubscriberLog;
  const watchers = new Map([
    ["r1", [watcher([delta(1, 900), delta(2, 5_100)]), watcher([delta(1, 950), delta(2, 7_000)])]],
  ]);
  const resume = killToResume(began, faults, calls, watchers);
  const report = buildReport({ seed: 10, minutes: 3, runs: 10 }, verdict, faults, [2_500, 3_500, 10_000], resume, {
    scenarios: { tool: 10 },
  });

  it("times each worker kill to the retry of the model call it cut, and to a watcher's next delta of a later attempt", () => {
    expect(report.killToResumeMs).toEqual({
      kills: 2,
      cutCalls: 2,
      retried: { samples: 2, p50: 3_600, max: 6_000 },
      nextDelta: { samples: 1, p50: 4_100, max: 4_100 }, // the earlier of r1's two watchers
      notRetried: 0,
    });
    const table = formatReport(report);
    expect(table).toContain("worker kills: 2, model calls they cut: 2 (0 not asked again); goal: on within 5 s");
    expect(table).toMatch(
      /kill -> the call asked again\s+p50 3\.6 s, max 6\.0 s over 2 \(NOT every one within the goal\)/,
    );
    expect(table).toMatch(/kill -> a watcher's next delta p50 4\.1 s, max 4\.1 s over 1 \(every one within the goal\)/);
  });

  it("times a kill that waited for a streamed answer from its SIGKILL, not from its injection", () => {
    const waited = faults.map((f) => (f.injectedMs === 1_000 ? { ...f, killedAt: began + 1_040 } : f));
    expect(killToResume(began, waited, calls, watchers)).toMatchObject({
      retried: { samples: 2, p50: 3_560, max: 6_000 },
      nextDelta: { samples: 1, p50: 4_060, max: 4_060 },
    });
  });

  it("counts a cut call never asked again, and has no figure without samples", () => {
    const none = killToResume(began, faults, calls.slice(0, 2), new Map());
    expect(none).toEqual({
      kills: 2,
      cutCalls: 1,
      retried: { samples: 0, p50: null, max: null },
      nextDelta: { samples: 0, p50: null, max: null },
      notRetried: 1,
    });
  });

  it("carries the verdict's counts and its violations, and executions per effect", () => {
    expect(report).toMatchObject({
      seed: 10,
      minutes: 3,
      runs: 10,
      completed: 9,
      lost: 1,
      stuck: 0,
      duplicateEffects: 1,
      executionsPerEffect: 1.25,
      violations: verdict.violations,
    });
    expect(report.details).toMatchObject({
      effects: 8,
      executions: 10,
      tokens: verdict.tokens,
      scenarios: { tool: 10 },
    });
  });

  it("counts the faults injected, by kind, and their recovery: injection to the first run end after the repair", () => {
    expect(report.faults).toEqual({ "worker-kill": 2, "model-503": 1, "postgres-stop": 1 }); // mcp-kill was never injected
    // worker-kill: 3,500 - 1,000 and 10,000 - 4,000; model-503: 10,000 - 2,000; postgres-stop: no run ended after its repair.
    expect(report.recoveryMs).toEqual({
      "worker-kill": { p50: 2_500, p95: 6_000 },
      "model-503": { p50: 8_000, p95: 8_000 },
    });
  });

  it("prints the same figures as a table, with the violations", () => {
    const table = formatReport(report);
    expect(table).toMatch(/duplicateEffects\s+1\n/);
    expect(table).toMatch(/executionsPerEffect\s+1\.25 \(10 executions \/ 8 effects\)/);
    expect(table).toMatch(/violations\s+2\n/);
    expect(table).toMatch(/worker-kill\s+2\s+2\.5 s\s+6\.0 s/);
    expect(table).toMatch(/postgres-stop\s+1\s+-\s+-/);
    expect(table).toContain("[effects] soak-coach-r0001 the call call_1 has 2 effects");
    expect(table).toContain("[lost] soak-coach-r0002");
    expect(table).not.toContain("memory");
  });

  it("prints memory's figures when the soak had memory runs", () => {
    const noKills = killToResume(0, [], [], new Map());
    const withMemory = buildReport({ seed: 10, minutes: 3, runs: 10 }, verdict, faults, [], noKills, {
      memory: { search: "exact", ...verdict.memory },
    });
    expect(formatReport(withMemory)).toMatch(
      /memory\s+2 runs with a user, 4 turns, 8 messages stored, 0 twice, 0 turns lost \(exact search\)\n\s+violations/,
    );
  });
});

describe("the soak's plan, drawn from the seed", () => {
  const count = <T extends string>(xs: T[]) =>
    xs.reduce<Record<string, number>>((acc, x) => ({ ...acc, [x]: (acc[x] ?? 0) + 1 }), {});
  const THREE_MINUTES = 3 * 60_000;

  it("is the same for the same seed: the mix, the fault schedule, and the drivers' draws", () => {
    const a = planSoak(10, 150, THREE_MINUTES);
    const b = planSoak(10, 150, THREE_MINUTES);
    expect(b.records).toEqual(a.records);
    expect(b.faults).toEqual(a.faults);
    expect([b.faultRng.next(), b.driverRng.next()]).toEqual([a.faultRng.next(), a.driverRng.next()]);
  });

  it("is another for another seed", () => {
    const a = planSoak(10, 150, THREE_MINUTES);
    const b = planSoak(11, 150, THREE_MINUTES);
    expect(b.records.map((r) => r.scenario)).not.toEqual(a.records.map((r) => r.scenario));
    expect(b.faults.map((f) => [f.kind, f.dueMs])).not.toEqual(a.faults.map((f) => [f.kind, f.dueMs]));
    expect(b.faultRng.next()).not.toBe(a.faultRng.next());
  });

  it("draws a fault every 5-20 s for the whole window, each with a duration in its kind's range", () => {
    const { faults } = planSoak(10, 150, THREE_MINUTES);
    const gaps = faults.map((f, i) => f.dueMs - (faults[i - 1]?.dueMs ?? 0));
    expect(gaps.every((gap) => gap >= 5_000 && gap <= 20_000)).toBe(true);
    expect(faults.at(-1)!.dueMs).toBeLessThan(THREE_MINUTES);
    expect(THREE_MINUTES - faults.at(-1)!.dueMs).toBeLessThanOrEqual(20_000);
    const range = {
      "postgres-stop": [2_000, 10_000],
      "model-503": [2_000, 8_000],
      "subscriber-pause": [3_000, 8_000],
    } as Record<string, [number, number]>;
    for (const f of faults) {
      const [min, max] = range[f.kind] ?? [500, 3_000];
      expect(f.durationMs, f.kind).toBeGreaterThanOrEqual(min);
      expect(f.durationMs, f.kind).toBeLessThanOrEqual(max);
    }
  });

  it("draws the Redis faults on a schedule of their own (one every 15-40 s), leaving the rest of the plan as it is without Redis", () => {
    const withRedis = planSoak(10, 150, THREE_MINUTES);
    const without = planSoak(10, 150, THREE_MINUTES, { redis: false });
    expect(without.redisFaults).toEqual([]);
    expect(without.records).toEqual(withRedis.records);
    expect(without.faults).toEqual(withRedis.faults);
    expect([without.faultRng.next(), without.driverRng.next()]).toEqual([
      withRedis.faultRng.next(),
      withRedis.driverRng.next(),
    ]);
    const { redisFaults } = planSoak(2026, 500, 10 * 60_000);
    const gaps = redisFaults.map((f, i) => f.dueMs - (redisFaults[i - 1]?.dueMs ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(10_000);
    expect(gaps[0]).toBeLessThanOrEqual(30_000);
    expect(gaps.slice(1).every((gap) => gap >= 15_000 && gap <= 40_000)).toBe(true);
    expect(10 * 60_000 - redisFaults.at(-1)!.dueMs).toBeLessThanOrEqual(40_000);
    for (const f of redisFaults) {
      const [min, max] = f.kind === "redis-kill" ? [1_000, 5_000] : [2_000, 6_000];
      expect(f.durationMs, f.kind).toBeGreaterThanOrEqual(min);
      expect(f.durationMs, f.kind).toBeLessThanOrEqual(max);
    }
  });

  it("gives CI's seed (10, 3 minutes) every kind of fault: 14 in all, and 7 Redis faults of both kinds, as .ci/soak.sh says", () => {
    const { faults, redisFaults } = planSoak(10, 150, THREE_MINUTES);
    expect(faults).toHaveLength(14);
    expect(Object.keys(count(faults.map((f) => f.kind))).sort()).toEqual(Object.keys(FAULT_MIX).sort());
    expect(count(redisFaults.map((f) => f.kind))).toEqual({ "redis-kill": 6, "redis-pause": 1 });
    expect(Object.keys(REDIS_FAULT_MIX).sort()).toEqual(["redis-kill", "redis-pause"]);
  });

  it("gives a share of the tool, local-tool, stream and session runs a user (memory), drawn after the rest of the plan", () => {
    const { records } = planSoak(10, 150, THREE_MINUTES);
    const withUser = records.filter((r) => r.user);
    expect(withUser.length).toBeGreaterThan(10);
    expect(withUser.every((r) => MEMORY_SCENARIOS.has(r.scenario) && /^soak-user-[1-4]$/.test(r.user!))).toBe(true);
    expect(new Set(withUser.map((r) => r.scenario))).toEqual(MEMORY_SCENARIOS);
    expect(new Set(withUser.map((r) => r.user)).size).toBe(4);
  });

  it("gives docs/reliability.md's run (seed 2026, 10 minutes, 500 runs) the mix and the 50 faults its table shows", () => {
    const { records, faults } = planSoak(2026, 500, 10 * 60_000);
    expect(count(records.map((r) => r.scenario))).toEqual({
      "local-tool": 53,
      tool: 51,
      stream: 45,
      "refusal-retry": 44,
      backstop: 43,
      subagent: 41,
      "act-when-asked": 38,
      mcp: 37,
      approval: 35,
      handoff: 30,
      "output-repair": 26,
      budget: 24,
      session: 21,
      "typed-failure": 12,
    });
    expect(count(faults.map((f) => f.kind))).toEqual({
      "postgres-stop": 6,
      "mcp-kill": 8,
      "history-kill": 9,
      "model-stall": 6,
      "worker-kill": 5,
      "server-restart": 3,
      "model-cut": 5,
      "model-503": 3,
      "subscriber-pause": 5,
    });
  });
});
