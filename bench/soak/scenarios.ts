/**
 * The soak's runs: the mix of scenarios (drawn with the seed), and the client side of each run,
 * as an application would drive it through faults: a start retried with the same workflow id,
 * results read again after a lost connection, approvals decided after a random delay, streamed
 * runs read by two subscribers each (one that disconnects and resumes from its offset, one that
 * reads straight through; both get paused by the fault driver, and both keep every text delta they
 * get), sessions of several messages. Some runs and sessions have a user (MEMORY_SCENARIOS): the
 * coach's memory recalls and stores their messages. Each run's record is what the client saw.
 */
import type { Client } from "@temporalio/client";
import { ai, DurableAgentError, type Agent, type RunHandle, type RunResult, type RunUsage } from "../../src/index.js";
import { coach, mcpCoach, typed } from "./agents.js";
import { marker, type ScenarioKind } from "./model.js";
import type { Prng } from "./prng.js";
import { defined } from "../../src/core/defined.js";

/** How often each scenario is drawn. */
export const MIX: Record<ScenarioKind, number> = {
  tool: 10,
  "local-tool": 10,
  mcp: 8,
  backstop: 8,
  "act-when-asked": 8,
  "refusal-retry": 8,
  "output-repair": 6,
  "typed-failure": 3,
  subagent: 8,
  handoff: 6,
  approval: 8,
  stream: 10,
  session: 4,
  budget: 5,
};

/** The `maxTokens` of budget runs (a trip of theirs uses ~40-60 tokens). */
export const BUDGET_TOKENS = 100;
/** Messages per session. */
export const SESSION_MESSAGES = 3;

/**
 * The scenarios whose runs may have a user, so memory (the coach's `ai.memory`) recalls before each
 * turn and stores the turn's messages after it: those whose turns hold one user message (no re-prompt).
 */
export const MEMORY_SCENARIOS: ReadonlySet<ScenarioKind> = new Set(["tool", "local-tool", "stream", "session"]);
/** The share of those runs given a user, and how many users they are spread over (user-scoped recall across runs). */
export const MEMORY_SHARE = 0.5;
export const MEMORY_USERS = 4;

/** A text delta a subscriber got, and where in its reading it came. */
export interface SeenDelta {
  /** How many durable events the subscriber had seen before it (it came before `offsets[afterEvents]`). */
  afterEvents: number;
  /** The stream it came on, from 1 (each reconnect opens the next): a new one sends the answer in flight again from its start. */
  connection: number;
  trip: number;
  attempt: number;
  text: string;
  /** When it came (epoch ms): the kill-to-resume figures read it. */
  at?: number;
}

/** What a subscriber of a streamed run saw. */
export interface SubscriberLog {
  /** "resuming" disconnects after a few events (three times) and resumes from its offset; "steady" reads straight through. */
  name: "resuming" | "steady";
  /** The durable events, in the order it got them, and the stream each came on. */
  offsets: number[];
  types: string[];
  eventConnections: number[];
  /** The text deltas, in the order it got them, between those events. */
  deltas: SeenDelta[];
  /** Streams opened (1, plus one per disconnect or error). */
  connections: number;
  disconnects: number;
  pauses: number;
  errors: string[];
  /** Set while the fault driver holds the subscriber: it reads nothing until then. */
  pausedUntil: number;
}

/** One run of the soak, as its client saw it. */
export interface RunRecord {
  key: string;
  scenario: ScenarioKind;
  workflowId: string;
  /** When its start was due, ms after the soak began. */
  dueMs: number;
  startedAt?: number;
  endedAt?: number;
  /** The results (one per session message), or the typed error the run failed with. */
  results?: RunResult[];
  error?: { name: string; message: string; usage?: RunUsage };
  /** Approval runs: what the driver decided, and after how long. */
  decision?: { approve: boolean; afterMs: number };
  /** Runs with memory: whose (`run(input, { user })`, `session(id, { user })`). */
  user?: string;
  /** Streamed runs: what each of its subscribers saw. */
  subscribers?: SubscriberLog[];
  /** Errors the client retried past (a start, a result read, an approval, a send). */
  retried: string[];
}

/** Draws the soak's runs: a scenario each, their starts spread over the window. */
export function planRuns(rng: Prng, runs: number, windowMs: number): RunRecord[] {
  return Array.from({ length: runs }, (_, i) => {
    const scenario = rng.pick(MIX);
    const key = `r${String(i).padStart(4, "0")}`;
    const agent = agentOf(scenario);
    const workflowId = scenario === "session" ? `${agent.name}-session-${key}` : `${agent.name}-${key}`;
    return { key, scenario, workflowId, dueMs: Math.floor((i * windowMs) / runs), retried: [] };
  });
}

/** Gives a share of the runs of MEMORY_SCENARIOS a user, drawn from `rng` (after the rest of the plan, which it leaves as it is). */
export function planMemoryUsers(rng: Prng, records: RunRecord[]): void {
  for (const record of records) {
    if (!MEMORY_SCENARIOS.has(record.scenario) || rng.next() >= MEMORY_SHARE) continue;
    record.user = `soak-user-${rng.int(1, MEMORY_USERS)}`;
  }
}

function agentOf(scenario: ScenarioKind): Agent {
  if (scenario === "mcp") return mcpCoach;
  if (scenario === "output-repair" || scenario === "typed-failure") return typed;
  return coach;
}

/** The input of a record's message (`message`: a session's, from 0). */
export function inputOf(record: RunRecord, message = 0): string {
  const m = marker(record.key, record.scenario);
  switch (record.scenario) {
    case "backstop":
      return `${m} my knee hurt during squats, change the plan`;
    case "act-when-asked":
      return `${m} swap squats for lunges`;
    case "session":
      return `${m} message ${message + 1}: change the plan`;
    default:
      return `${m} ${record.scenario} please`;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const describe = (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`.slice(0, 300);

/** The soak's client side: runs each record, retrying what a lost connection interrupted, until `deadline`. */
export class Driver {
  /** Subscribers reading now (the fault driver pauses one of them). */
  readonly subscribers = new Set<SubscriberLog>();

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly rng: Prng,
    private readonly deadline: () => number,
  ) {}

  /** Retries `fn` past errors that are not the run's own typed failure, until the deadline. */
  private async retry<T>(record: RunRecord, what: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (error) {
        if (DurableAgentError.isInstance(error) || Date.now() > this.deadline()) throw error;
        record.retried.push(`${what}: ${describe(error)}`);
        await sleep(Math.min(500 * attempt, 3_000));
      }
    }
  }

  /** Runs one record to its end (or until the deadline); never throws. */
  async run(record: RunRecord): Promise<void> {
    const rng = this.rng.fork();
    record.startedAt = Date.now();
    try {
      if (record.scenario === "session") await this.session(record);
      else {
        const handle = await this.start(record);
        const side =
          record.scenario === "approval"
            ? this.approve(record, handle, rng)
            : record.scenario === "stream"
              ? Promise.all([
                  this.subscribe(record, handle, rng, "resuming"),
                  this.subscribe(record, handle, rng, "steady"),
                ])
              : undefined;
        record.results = [await this.retry(record, "result", () => handle.result())];
        await side;
      }
    } catch (error) {
      const typedError = error as DurableAgentError;
      record.error = {
        name: typedError.name,
        message: typedError.message.slice(0, 500),
        ...defined({ usage: typedError.usage }),
      };
    }
    record.endedAt = Date.now();
  }

  /** Starts the run; a start retried after a lost answer finds the run the first one started. */
  private async start(record: RunRecord): Promise<RunHandle> {
    const agent = agentOf(record.scenario);
    const options = {
      client: this.client,
      taskQueue: this.taskQueue,
      workflowId: record.workflowId,
      noWorkerWarningAfter: false as const,
      ...(record.scenario === "stream" ? { streamText: true } : {}),
      ...(record.scenario === "budget" ? { budget: { maxTokens: BUDGET_TOKENS } } : {}),
      ...(record.user ? { user: record.user } : {}),
    };
    return this.retry(record, "start", async (attempt) => {
      try {
        return await agent.start(inputOf(record), options);
      } catch (error) {
        if (attempt > 1 && /already started|AlreadyStarted/i.test(describe(error)))
          return ai.getRun(record.workflowId, { client: this.client });
        throw error;
      }
    });
  }

  /** Approves (4 in 5) or rejects the run's call after a random delay of 0.5-5 s. */
  private async approve(record: RunRecord, handle: RunHandle, rng: Prng): Promise<void> {
    const approve = rng.next() < 0.8;
    const afterMs = rng.int(500, 5_000);
    record.decision = { approve, afterMs };
    let callId: string | undefined;
    while (!callId && Date.now() < this.deadline()) {
      const pending = await handle.pendingApprovals().catch(() => []);
      callId = pending[0]?.callId;
      if (!callId) await sleep(300);
    }
    if (!callId) return;
    await sleep(afterMs);
    await this.retry(record, "approval", async (attempt) => {
      try {
        await (approve
          ? handle.approve(callId, { by: "soak-driver" })
          : handle.reject(callId, { by: "soak-driver", reason: "soak: rejected by the driver" }));
      } catch (error) {
        // A decision whose answer was lost: the retry finds no call waiting, as the first one applied.
        const stillPending = attempt > 1 ? (await handle.pendingApprovals()).some((p) => p.callId === callId) : true;
        if (stillPending) throw error;
      }
    });
  }

  /**
   * Reads the run's stream until run.finished, keeping every event and text delta; a "resuming"
   * subscriber disconnects after a few events and resumes from the next offset (three times).
   */
  private async subscribe(record: RunRecord, handle: RunHandle, rng: Prng, name: SubscriberLog["name"]): Promise<void> {
    const log: SubscriberLog = {
      name,
      offsets: [],
      types: [],
      eventConnections: [],
      deltas: [],
      connections: 0,
      disconnects: 0,
      pauses: 0,
      errors: [],
      pausedUntil: 0,
    };
    (record.subscribers ??= []).push(log);
    this.subscribers.add(log);
    let from = 0;
    try {
      while (Date.now() < this.deadline()) {
        const disconnectAfter = name === "resuming" && log.disconnects < 3 ? rng.int(2, 8) : Infinity;
        let read = 0;
        let finished = false;
        const connection = ++log.connections;
        try {
          for await (const event of handle.stream({ fromOffset: from, subAgents: false })) {
            from = event.offset + 1; // a text delta carries the offset of the durable event before it
            if (event.type === "text.delta") {
              // Deltas of the answer in flight come again from its start after a reconnect: the checker knows by `connection`.
              const { trip, attempt, text } = event;
              log.deltas.push({ afterEvents: log.offsets.length, connection, trip, attempt, text, at: Date.now() });
              continue;
            }
            log.offsets.push(event.offset);
            log.types.push(event.type);
            log.eventConnections.push(connection);
            if (event.type === "run.finished") {
              finished = true;
              break;
            }
            while (Date.now() < log.pausedUntil) await sleep(log.pausedUntil - Date.now());
            if (++read >= disconnectAfter) {
              log.disconnects += 1;
              break;
            }
          }
        } catch (error) {
          log.errors.push(describe(error));
          await sleep(1_000);
        }
        if (finished) return;
      }
    } finally {
      this.subscribers.delete(log);
    }
  }

  /** A session of several messages, sent one after another, then ended. */
  private async session(record: RunRecord): Promise<void> {
    const session = coach.session(record.key, {
      client: this.client,
      taskQueue: this.taskQueue,
      ...(record.user ? { user: record.user } : {}),
    });
    record.results = [];
    for (let i = 0; i < SESSION_MESSAGES; i++) {
      // A send is not retried: a second send would be a second message. Its loss is a violation.
      record.results.push(await session.send(inputOf(record, i)));
    }
    await this.retry(record, "session end", () => session.end());
  }
}
