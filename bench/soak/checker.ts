/**
 * The soak's checker: at the end, from the runs' histories, the ledger and what the clients saw,
 * decides whether every run reached its expected end, every effect happened once per idempotency
 * key, backstops and re-prompts stayed within their limits, every subscriber saw its run's stream
 * whole and in order and each answer's text as the model gave it (no two attempts' text mixed),
 * budgets held within their bound, the runs' usage equals the model server's own count of
 * tokens served, and memory kept each turn of the runs with a user once: its messages stored once
 * by (run, turn, index), none lost for a completed turn, `memory.remember` completed once a turn.
 * Each breach is a violation naming the run and the check.
 *
 * What it reads from Temporal (a run's status, its history, its stream read whole) comes through
 * `RunSource`, so the checking itself is a function of plain data: `temporalRuns(client)` in the
 * soak, a table of made-up runs in its test (test/soak-checker.test.ts).
 */
import type { Client } from "@temporalio/client";
import type { temporal } from "@temporalio/proto";
import { ai, type MemoryMessage, type RunResult, type TraceEvent } from "../../src/index.js";
import type { ScriptedRequest } from "../../src/testing/index.js";
import type { LedgerRow } from "./ledger.js";
import { runKeyOf, type ScenarioKind } from "./model.js";
import { BUDGET_TOKENS, inputOf, SESSION_MESSAGES, type RunRecord, type SubscriberLog } from "./scenarios.js";

/** One breach of what the soak expects. */
export interface Violation {
  run?: string;
  check:
    | "end"
    | "lost"
    | "stuck"
    | "effects"
    | "backstop"
    | "reprompts"
    | "stream"
    | "text"
    | "budget"
    | "usage"
    | "memory"
    | "fault";
  detail: string;
}

/** What the checker found. */
export interface Verdict {
  completed: number;
  lost: number;
  stuck: number;
  effects: number;
  executions: number;
  /**
   * Effects past those expected, each also a violation: a call's ledger keys past its one, backstop
   * and sub-agent tool keys past the scenario's, and keys of no recorded call.
   */
  duplicateEffects: number;
  /** Tokens the model server served, those the runs counted, and those served to lost attempts (the bound). */
  tokens: { served: number; counted: number; servedToLostAttempts: number };
  /** Memory: runs with a user, their turns, the messages stored, those stored twice, and completed turns with nothing stored. */
  memory: { runs: number; turns: number; stored: number; duplicates: number; lostTurns: number };
  violations: Violation[];
}

/** A message in the memory store, as `inspect(user)` lists it, without the time the checker does not read. */
export type StoredMemoryMessage = Omit<MemoryMessage, "createdAt">;

type History = temporal.api.history.v1.IHistory;

/** A durable event of a run's stream, with what the text check reads: the trip and attempt of `trip.retry`, the text of `model.answered`. */
export interface DurableEvent {
  offset: number;
  type: string;
  trip?: number;
  attempt?: number;
  text?: string | null;
}

/** A run as the server has it, which is what the checker asks of Temporal. */
export interface RunSource {
  status(workflowId: string): Promise<"running" | "closed" | "not found">;
  history(workflowId: string): Promise<History>;
  /** The run's durable events (text deltas left out: they are not durable), its stream read whole. */
  events(workflowId: string): Promise<DurableEvent[]>;
}

/** The runs as the soak's Temporal server has them. */
export function temporalRuns(client: Client): RunSource {
  return {
    async status(workflowId) {
      try {
        const description = await client.workflow.getHandle(workflowId).describe();
        return description.status.name === "RUNNING" ? "running" : "closed";
      } catch (error) {
        if ((error as Error).name === "WorkflowNotFoundError") return "not found";
        throw error;
      }
    },
    history: (workflowId) => client.workflow.getHandle(workflowId).fetchHistory(),
    async events(workflowId) {
      const whole: DurableEvent[] = [];
      const handle = await ai.getRun(workflowId, { client });
      for await (const event of handle.stream({ subAgents: false })) {
        if (event.type === "text.delta") continue;
        const { offset, type } = event;
        if (type === "trip.retry") whole.push({ offset, type, trip: event.trip, attempt: event.attempt });
        else if (type === "model.answered") whole.push({ offset, type, trip: event.trip, text: event.text });
        else whole.push({ offset, type });
      }
      return whole;
    },
  };
}

/** Tools whose ok calls write one ledger row each (the sub-agent's and the handoff's write none of their own). */
const EFFECT_TOOLS = new Set(["update_plan", "log_set", "refund", "book_class"]);

/** The re-prompts each scenario's script makes, by kind: exactly these, and none of any other kind. */
const EXPECTED_REPROMPTS: Partial<Record<ScenarioKind, Record<string, number>>> = {
  backstop: { backstop: 0 }, // the before backstop's prompt goes with the first call, not as a re-prompt
  "act-when-asked": { "act-when-asked": 1 },
  "refusal-retry": { "refusal-retry": 1 },
  "output-repair": { "output-repair": 1 },
};
/** The most re-prompts of each kind a run may send (the agents' limits). */
const REPROMPT_LIMITS: Record<string, number> = {
  "act-when-asked": 1,
  "refusal-retry": 1,
  "output-repair": 1,
  backstop: 1,
};

function expectEnd(record: RunRecord): string | undefined {
  const { scenario, results, error } = record;
  if (scenario === "typed-failure")
    return error?.name === "OutputValidationError"
      ? undefined
      : `expected OutputValidationError, got ${error ? `${error.name}: ${error.message}` : `a result (${results?.[0]?.stopReason})`}`;
  if (error) return `failed: ${error.name}: ${error.message}`;
  if (!results?.length) return "no result";
  if (scenario === "session" && results.length !== SESSION_MESSAGES)
    return `${results.length} of ${SESSION_MESSAGES} messages answered`;
  for (const result of results) {
    const want = scenario === "budget" ? "budget" : "answered";
    if (result.stopReason !== want) return `stopReason ${result.stopReason}, expected ${want}`;
    const bad = result.toolCalls.filter(
      (c) =>
        c.status !== "ok" &&
        !(scenario === "refusal-retry" && c.status === "refused") &&
        !(scenario === "approval" && record.decision?.approve === false && c.status === "refused"),
    );
    if (bad.length)
      return `tool calls ${bad.map((c) => `${c.name} ${c.status}${c.error ? ` (${c.error.slice(0, 200)})` : ""}`).join(", ")}`;
  }
  const result = results[0]!;
  if (scenario === "handoff" && result.agent !== "soak-closer")
    return `answered by ${result.agent}, expected soak-closer after the handoff`;
  if (scenario === "output-repair" && JSON.stringify(result.output) !== JSON.stringify({ exercise: "lunges", sets: 3 }))
    return `output ${JSON.stringify(result.output)}`;
  if (scenario === "subagent" && !result.toolCalls.some((c) => c.name === "ask_specialist" && c.status === "ok"))
    return "no sub-agent call";
  if (scenario === "approval") {
    const refund = result.toolCalls.find((c) => c.name === "refund");
    const want = record.decision?.approve ? "ok" : "refused";
    if (refund?.status !== want)
      return `refund ${refund?.status ?? "never called"}, expected ${want} (the driver ${record.decision?.approve ? "approved" : "rejected"} it)`;
  }
  return undefined;
}

/** Checks every run; `requests` are the model server's, `runs` what the Temporal server has, `memory` the memory store's messages of the runs' users. */
export async function check(
  records: RunRecord[],
  ledger: LedgerRow[],
  requests: ScriptedRequest[],
  runs: RunSource,
  memory: StoredMemoryMessage[] = [],
): Promise<Verdict> {
  const violations: Violation[] = [];
  const add = (record: RunRecord | undefined, check: Violation["check"], detail: string) =>
    violations.push({ ...(record ? { run: record.workflowId } : {}), check, detail });
  let completed = 0;
  let lost = 0;
  let stuck = 0;
  let duplicateEffects = 0;

  const rowsByRun = new Map<string, LedgerRow[]>();
  const owner = (workflowId: string) =>
    records.find((r) => workflowId === r.workflowId || workflowId.startsWith(`${r.workflowId}/`));
  for (const row of ledger) {
    const record = owner(row.workflowId);
    if (!record) {
      add(undefined, "effects", `ledger row of no run: ${row.key}`);
      continue;
    }
    rowsByRun.set(record.workflowId, [...(rowsByRun.get(record.workflowId) ?? []), row]);
  }
  let servedTotal = 0;
  let uncounted = 0;
  let countedTotal = 0;
  const memoryFigures = { runs: 0, turns: 0, stored: memory.length, duplicates: 0, lostTurns: 0 };
  const storedByRun = new Map<string, StoredMemoryMessage[]>();
  for (const message of memory) storedByRun.set(message.run, [...(storedByRun.get(message.run) ?? []), message]);
  for (const [run, stored] of storedByRun) {
    const record = records.find((r) => r.workflowId === run);
    if (!record?.user) add(record, "memory", `${stored.length} message(s) stored for ${run}, a run without a user`);
  }

  for (const record of records) {
    const status = await runs.status(record.workflowId);
    if (status === "not found") {
      lost += 1;
      add(
        record,
        "lost",
        `the server has no run ${record.workflowId} (the client ${record.results ? "got a result" : record.error ? `saw ${record.error.name}` : "saw nothing"})`,
      );
      continue;
    }
    if (status === "running") {
      stuck += 1;
      add(
        record,
        "stuck",
        `still running at the end (${record.scenario}; client retried: ${record.retried.slice(-3).join(" | ") || "nothing"})`,
      );
      continue;
    }
    const endProblem = expectEnd(record);
    if (endProblem) add(record, "end", `${record.scenario}: ${endProblem}`);
    else completed += 1;

    // Effects: one ledger key per ok call of an effect tool (its key ends with the call's id), one
    // for the backstop, one for the sub-agent's tool, and no other.
    const rows = rowsByRun.get(record.workflowId) ?? [];
    const keys = new Map<string, LedgerRow[]>();
    for (const row of rows) keys.set(row.key, [...(keys.get(row.key) ?? []), row]);
    const results = record.results ?? [];
    const expected: string[] = [];
    for (const result of results)
      for (const call of result.toolCalls)
        if (call.status === "ok" && EFFECT_TOOLS.has(call.name)) expected.push(`/${call.id}`);
    const matched = new Set<string>();
    for (const suffix of expected) {
      const found = [...keys.keys()].filter((k) => k.endsWith(suffix) && !k.includes("/backstop/"));
      if (found.length === 0) add(record, "effects", `the ok call ${suffix.slice(1)} has no ledger row`);
      if (found.length > 1) {
        add(record, "effects", `the call ${suffix.slice(1)} has ${found.length} effects: ${found.join(", ")}`);
        duplicateEffects += found.length - 1;
      }
      for (const k of found) matched.add(k);
    }
    const backstopKeys = [...keys.keys()].filter((k) => k.includes("/backstop/"));
    const childKeys = [...keys.keys()].filter((k) => keys.get(k)![0]!.kind === "child-tool");
    const wantBackstop = record.scenario === "backstop" ? 1 : 0;
    if (backstopKeys.length !== wantBackstop)
      add(record, "backstop", `${backstopKeys.length} backstop effects, expected ${wantBackstop}`);
    duplicateEffects += Math.max(0, backstopKeys.length - wantBackstop);
    const wantChild = record.scenario === "subagent" && !endProblem ? 1 : 0;
    if (childKeys.length !== wantChild && !endProblem) {
      add(record, "effects", `${childKeys.length} sub-agent tool effects, expected ${wantChild}`);
      duplicateEffects += Math.max(0, childKeys.length - wantChild);
    }
    for (const k of [...backstopKeys, ...childKeys]) matched.add(k);
    const orphans = [...keys.keys()].filter((k) => !matched.has(k));
    if (orphans.length) add(record, "effects", `effects of no recorded call: ${orphans.join(", ")}`);
    duplicateEffects += orphans.length;

    // Backstops and re-prompts, from the results' traces and the history.
    const history = await runs.history(record.workflowId);
    const backstopRuns = completedActivities(history, "backstop.run");
    if (backstopRuns > 1) add(record, "backstop", `backstop.run completed ${backstopRuns} times in the history`);
    for (const result of results) checkReprompts(record, result.trace, add);
    if (record.user) {
      memoryFigures.runs += 1;
      const found = checkMemory(
        record,
        endProblem ? [] : results,
        storedByRun.get(record.workflowId) ?? [],
        history,
        add,
      );
      memoryFigures.turns += found.turns;
      memoryFigures.duplicates += found.duplicates;
      memoryFigures.lostTurns += found.lostTurns;
    }

    // The stream, as each subscriber saw it, against the stream read whole at the end; its text against the model's.
    if (record.subscribers?.length) {
      const whole = await runs.events(record.workflowId);
      for (const seen of record.subscribers) {
        checkStream(record, seen, whole, add);
        checkText(record, seen, whole, add);
      }
    }

    // Budget: overspent by at most the last trip's usage (a trip does not start once it is used up).
    if (record.scenario === "budget" && results[0]) {
      const used = results[0].usage?.totalTokens ?? 0;
      const trips = results[0].trace.filter(
        (e): e is Extract<TraceEvent, { type: "model.answered" }> => e.type === "model.answered",
      );
      const last = trips.at(-1)?.usage?.totalTokens ?? 0;
      if (used - last >= BUDGET_TOKENS)
        add(record, "budget", `a trip started with ${used - last} tokens used of a ${BUDGET_TOKENS} budget`);
      if (used > BUDGET_TOKENS + last)
        add(record, "budget", `used ${used} of ${BUDGET_TOKENS}, more than one trip (${last}) over`);
    }

    // Usage: what the run counted equals what the model server served to it, less the answers served
    // to model.call attempts that were lost (their worker killed before it reported): the bound.
    const counted =
      results.reduce((sum, r) => sum + (r.usage?.totalTokens ?? 0), 0) + (record.error?.usage?.totalTokens ?? 0);
    const servedToRun = requests
      .filter((r) => r.usageServed && runKeyOf(r) === record.key)
      .map((r) => r.usageServed!.total_tokens ?? 0);
    const servedHere = servedToRun.reduce((a, b) => a + b, 0);
    servedTotal += servedHere;
    countedTotal += counted;
    if (counted !== servedHere) {
      const lostAttempts = await failedModelAttempts(runs, record, history);
      if (counted < servedHere && explainedByLostAttempts(servedToRun, servedHere - counted, lostAttempts))
        uncounted += servedHere - counted;
      else
        add(
          record,
          "usage",
          `counted ${counted} tokens, the model server served ${servedHere}, which the answers served to its ${lostAttempts} failed model.call attempts do not explain`,
        );
    }
  }
  const effects = new Set(ledger.map((r) => r.key)).size;
  return {
    completed,
    lost,
    stuck,
    effects,
    executions: ledger.length,
    duplicateEffects,
    tokens: { served: servedTotal, counted: countedTotal, servedToLostAttempts: uncounted },
    memory: memoryFigures,
    violations,
  };
}

function checkReprompts(
  record: RunRecord,
  trace: TraceEvent[],
  add: (record: RunRecord, check: Violation["check"], detail: string) => void,
): void {
  const counts: Record<string, number> = {};
  for (const e of trace) if (e.type === "reprompt") counts[e.kind] = (counts[e.kind] ?? 0) + 1;
  for (const [kind, n] of Object.entries(counts))
    if (n > (REPROMPT_LIMITS[kind] ?? 0))
      add(record, "reprompts", `${n} ${kind} re-prompts, over the limit of ${REPROMPT_LIMITS[kind] ?? 0}`);
  const expected = EXPECTED_REPROMPTS[record.scenario];
  const approvalRejected = record.scenario === "approval" && record.decision?.approve === false;
  for (const kind of Object.keys(REPROMPT_LIMITS)) {
    const want = expected?.[kind] ?? (approvalRejected && kind === "refusal-retry" ? 1 : 0);
    if ((counts[kind] ?? 0) !== want)
      add(record, "reprompts", `${counts[kind] ?? 0} ${kind} re-prompts, the script makes ${want}`);
  }
  const backstops = trace.filter(
    (e) => e.type === "backstop" && (e.outcome === "ran" || e.outcome === "prompted"),
  ).length;
  if (backstops > 1) add(record, "backstop", `the backstop ran ${backstops} times (trace)`);
}

/**
 * A run with a user, against what memory stored of it: each (turn, index) once, the run's user and
 * session on each; for each completed turn (`results`, one per turn in order), its messages stored:
 * the input first, the reply last, and `memory.remember` completed once a turn in the history.
 */
function checkMemory(
  record: RunRecord,
  results: RunResult[],
  stored: StoredMemoryMessage[],
  history: History,
  add: (record: RunRecord, check: Violation["check"], detail: string) => void,
): { turns: number; duplicates: number; lostTurns: number } {
  const byTurn = new Map<number, StoredMemoryMessage[]>();
  let duplicates = 0;
  for (const message of stored) {
    const turn = byTurn.get(message.turn) ?? [];
    if (turn.some((m) => m.index === message.index)) {
      duplicates += 1;
      add(record, "memory", `message (turn ${message.turn}, index ${message.index}) stored twice`);
    }
    if (message.user !== record.user || message.session !== record.workflowId)
      add(
        record,
        "memory",
        `message (turn ${message.turn}, index ${message.index}) stored for ${message.user} in ${message.session}`,
      );
    byTurn.set(message.turn, [...turn, message]);
  }
  const turns = [...byTurn.keys()].sort((a, b) => a - b);
  let lostTurns = 0;
  results.forEach((result, i) => {
    if (!result.trace.some((e) => e.type === "memory.recalled"))
      add(record, "memory", `turn ${i + 1} recalled nothing (no memory.recalled)`);
    const messages = [...(byTurn.get(turns[i]!) ?? [])].sort((a, b) => a.index - b.index);
    if (messages.length === 0) {
      lostTurns += 1;
      add(record, "memory", `turn ${i + 1} completed, but none of its messages is stored`);
      return;
    }
    const [first, last] = [messages[0]!, messages.at(-1)!];
    if (first.role !== "user" || first.text !== inputOf(record, i))
      add(
        record,
        "memory",
        `turn ${i + 1}'s first stored message is ${first.role} ${JSON.stringify(clip(first.text))}, not the input`,
      );
    if (last.role !== "assistant" || last.text !== result.reply.trim())
      add(
        record,
        "memory",
        `turn ${i + 1}'s last stored message is ${last.role} ${JSON.stringify(clip(last.text))}, not the reply`,
      );
  });
  if (turns.length > results.length && results.length)
    add(record, "memory", `${turns.length} turns stored, ${results.length} completed`);
  const remembered = completedActivities(history, "memory.remember");
  if (results.length && remembered !== results.length)
    add(record, "memory", `memory.remember completed ${remembered} times for ${results.length} turn(s)`);
  return { turns: results.length, duplicates, lostTurns };
}

/** Every durable event once, in order (text deltas are not durable: a reconnect may send the answer in flight again). */
function checkStream(
  record: RunRecord,
  seen: SubscriberLog,
  whole: DurableEvent[],
  add: (record: RunRecord, check: Violation["check"], detail: string) => void,
): void {
  const offsets = seen.offsets.join(",");
  if (offsets !== whole.map((e) => e.offset).join(","))
    add(
      record,
      "stream",
      `the ${seen.name} subscriber saw offsets ${abbreviate(seen.offsets)}; the stream has ${abbreviate(whole.map((e) => e.offset))} (${seen.disconnects} disconnects, ${seen.pauses} pauses)`,
    );
  else if (seen.types.join(",") !== whole.map((e) => e.type).join(","))
    add(record, "stream", `the ${seen.name} subscriber saw other events than the stream holds`);
  if (seen.types.at(-1) !== "run.finished")
    add(record, "stream", `the ${seen.name} subscriber's last event is ${seen.types.at(-1)}, not run.finished`);
}

/**
 * Each answer's text as the subscriber got it equals the model's: at each `model.answered` it saw,
 * the deltas of that trip's final attempt, on the stream they last came on (a reconnect sends the
 * answer in flight again from its start; a `trip.retry` starts it again), add up to the event's
 * text. And no two attempts' text mixed: an attempt's deltas come only after its `trip.retry`
 * (the first attempt's, before any), none of an earlier attempt after it, none of a trip after its
 * `model.answered`.
 */
function checkText(
  record: RunRecord,
  seen: SubscriberLog,
  whole: DurableEvent[],
  add: (record: RunRecord, check: Violation["check"], detail: string) => void,
): void {
  const byOffset = new Map(whole.map((e) => [e.offset, e]));
  const latest = new Map<number, number>(); // trip -> the attempt whose trip.retry came last
  const answered = new Set<number>();
  const shown = new Map<number, { attempt: number; connection: number; text: string }>();
  const problems = new Set<string>(); // each once, however many deltas show it
  const problem = (detail: string) => problems.add(detail);
  let next = 0;
  for (let at = 0; at <= seen.offsets.length; at++) {
    for (; next < seen.deltas.length && seen.deltas[next]!.afterEvents <= at; next++) {
      const { trip, attempt, connection, text } = seen.deltas[next]!;
      const current = latest.get(trip) ?? 1;
      if (answered.has(trip)) problem(`text of trip ${trip} (attempt ${attempt}) after its model.answered`);
      else if (attempt > current) problem(`text of trip ${trip}'s attempt ${attempt} before its trip.retry`);
      else if (attempt < current)
        problem(`text of trip ${trip}'s attempt ${attempt} after attempt ${current}'s trip.retry: two attempts mixed`);
      else {
        const sofar = shown.get(trip);
        if (sofar && sofar.attempt === attempt && sofar.connection === connection) sofar.text += text;
        else shown.set(trip, { attempt, connection, text });
      }
    }
    const offset = seen.offsets[at];
    const event = offset === undefined ? undefined : byOffset.get(offset);
    if (event?.type === "trip.retry" && event.trip !== undefined) {
      latest.set(event.trip, Math.max(event.attempt ?? 1, latest.get(event.trip) ?? 1));
      shown.delete(event.trip);
    } else if (event?.type === "model.answered" && event.trip !== undefined) {
      answered.add(event.trip);
      const want = event.text ?? "";
      // The text that counts came on the stream that brought model.answered (a new stream sends it again).
      const found = shown.get(event.trip);
      const got = found?.connection === seen.eventConnections[at] ? found : undefined;
      if ((got?.text ?? "") !== want)
        problem(
          `trip ${event.trip}'s text ${JSON.stringify(clip(got?.text ?? ""))} (attempt ${got?.attempt ?? latest.get(event.trip) ?? 1}, stream ${seen.eventConnections[at]}) is not the model's ${JSON.stringify(clip(want))}`,
        );
    }
  }
  for (const detail of problems) add(record, "text", `the ${seen.name} subscriber: ${detail}`);
}

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 40)}…${text.slice(-36)}` : text);

const abbreviate = (xs: number[]) =>
  xs.length > 12 ? `${xs.slice(0, 6).join(",")},…,${xs.slice(-4).join(",")} (${xs.length})` : xs.join(",");

function completedActivities(history: History, type: string): number {
  const events = history.events ?? [];
  return events.filter((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    return (
      done &&
      events.find((s) => Number(s.eventId) === Number(done.scheduledEventId))?.activityTaskScheduledEventAttributes
        ?.activityType?.name === type
    );
  }).length;
}

/** Whether the answers of at most `attempts` of the served answers add up to exactly `missing` tokens. */
function explainedByLostAttempts(served: number[], missing: number, attempts: number): boolean {
  const search = (from: number, left: number, budget: number): boolean =>
    left === 0 ||
    (budget > 0 && served.some((tokens, i) => i >= from && tokens <= left && search(i + 1, left - tokens, budget - 1)));
  return attempts > 0 && search(0, missing, attempts);
}

/**
 * Model call attempts that did not complete (an attempt lost with a killed worker times out; a 503
 * or a cut stream fails), in the run's and its children's histories: the attempts before each
 * completed model.call's last one.
 */
async function failedModelAttempts(runs: RunSource, record: RunRecord, history: History): Promise<number> {
  const histories = [history];
  for (const result of record.results ?? []) {
    for (const e of result.trace) if (e.type === "subagent.started") histories.push(await runs.history(e.workflowId));
  }
  let count = 0;
  for (const h of histories) {
    const events = h.events ?? [];
    for (const e of events) {
      const started = e.activityTaskStartedEventAttributes;
      if (!started || (started.attempt ?? 1) <= 1) continue;
      const scheduled = events.find(
        (s) => Number(s.eventId) === Number(started.scheduledEventId),
      )?.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === "model.call") count += started.attempt! - 1;
    }
  }
  return count;
}
