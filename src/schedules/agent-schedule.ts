/**
 * `ai.schedules.get(id)`: one agent schedule, over Temporal's `ScheduleHandle`: describe it, pause,
 * unpause, trigger a run now, backfill a past range, change it, delete it. A call on a schedule the
 * namespace does not have throws `UnknownScheduleError`.
 */
import type {
  Client,
  ScheduleDescription,
  ScheduleHandle,
  ScheduleOverlapPolicy,
  ScheduleSpecDescription,
} from "@temporalio/client";
import { getDefaultClient } from "../client/connection.js";
import { prepareRunStart } from "../client/start-run.js";
import { defined } from "../core/defined.js";
import type { Message } from "../core/types.js";
import type { AgentRunArgs } from "../workflows/definitions.js";
import { ScheduleOptionsError } from "./errors.js";
import { withTypedErrors } from "./schedule-errors-from-server.js";
import {
  OVERLAP_POLICIES,
  checkPauseOnFailure,
  overlapPolicy,
  timingSpec,
  zoneAndJitter,
  type ScheduleChanges,
  type ScheduleOverlap,
} from "./schedule-options.js";

/** The memo key under which a schedule records the agent it runs. */
export const SCHEDULE_AGENT_MEMO = "durable-agent.agent";

/** A run a schedule started. */
export interface ScheduledRun {
  /** The run's workflow id: the schedule's prefix (`<agent>-<scheduleId>`) and the time it was due. */
  workflowId: string;
  /** When it was due. */
  scheduledAt: Date;
  /** When the schedule started it. */
  startedAt: Date;
}

/** An agent schedule as `ai.schedules.list()` gives it. */
export interface AgentScheduleSummary {
  /** The schedule's id: its runs carry it as the search attribute `TemporalScheduledById`. */
  id: string;
  /** The agent its runs run. */
  agent: string;
  /** Paused schedules start no runs (a trigger still starts one). */
  paused: boolean;
  /** The note of the last pause, unpause or creation. */
  note?: string;
  /** When the next runs are due (none while paused: Temporal lists the times a paused schedule would have used). */
  nextRuns: Date[];
  /** The runs it started last, oldest first. */
  recentRuns: ScheduledRun[];
}

/** An agent schedule in full, as `schedule.describe()` gives it. */
export interface AgentScheduleDescription extends AgentScheduleSummary {
  /** The input every run starts with, as messages. */
  input: Message[];
  /** The runs' context, when given. */
  context?: unknown;
  /** The task queue its runs go to. */
  taskQueue: string;
  /** When runs are due, as Temporal holds it (a cron expression is held as calendars; `every` as intervals in ms). */
  spec: ScheduleSpecDescription;
  /** What happens to a run due while the last is still going (Temporal's other policies as their lower-case names). */
  overlap: ScheduleOverlap | "buffer-all" | "terminate-other";
  /** Whether a failed run pauses the schedule. */
  pauseOnFailure: boolean;
  /** The workflow ids of its runs still going that the overlap policy watches (a `trigger()`'s run, allowed to overlap, is not among them). */
  runningRuns: string[];
  /** How many runs it has started. */
  runsStarted: number;
  /** How many due runs the overlap policy skipped. */
  runsSkipped: number;
  /** When it was created. */
  createdAt: Date;
}

/** A run of `recentActions`, as a `ScheduledRun`. */
export function scheduledRunOf(result: {
  scheduledAt: Date;
  takenAt: Date;
  action: { workflow: { workflowId: string } };
}): ScheduledRun {
  return { workflowId: result.action.workflow.workflowId, scheduledAt: result.scheduledAt, startedAt: result.takenAt };
}

function overlapOf(policy: ScheduleOverlapPolicy): AgentScheduleDescription["overlap"] {
  const known = Object.entries(OVERLAP_POLICIES).find(([, value]) => value === policy);
  return (known?.[0] ?? String(policy).toLowerCase().replace(/_/g, "-")) as AgentScheduleDescription["overlap"];
}

/** The run arguments a schedule's action holds. */
function runArgsOf(description: ScheduleDescription): AgentRunArgs {
  return description.action.args?.[0] as AgentRunArgs;
}

/** One agent schedule, by id. Create one with `agent.schedule()`; find one with `ai.schedules.get(id)`. */
export class AgentSchedule {
  /** The schedule's id. */
  readonly id: string;
  readonly #client: Client | undefined;
  #handle: ScheduleHandle | undefined;

  constructor(id: string, client?: Client) {
    this.id = id;
    this.#client = client;
  }

  async #call<T>(call: (handle: ScheduleHandle) => Promise<T>): Promise<T> {
    this.#handle ??= (this.#client ?? (await getDefaultClient())).schedule.getHandle(this.id);
    const handle = this.#handle;
    return withTypedErrors(this.id, () => call(handle));
  }

  /** The schedule as it is now: its agent, input, timing, policies, state, next and recent runs. */
  async describe(): Promise<AgentScheduleDescription> {
    const d = await this.#call((handle) => handle.describe());
    const args = runArgsOf(d);
    return {
      id: this.id,
      agent: (d.memo?.[SCHEDULE_AGENT_MEMO] as string | undefined) ?? args?.agent ?? d.action.workflowType,
      paused: d.state.paused,
      ...defined({ note: d.state.note || undefined, context: args?.context }),
      nextRuns: d.state.paused ? [] : d.info.nextActionTimes,
      recentRuns: d.info.recentActions.map(scheduledRunOf),
      input: args?.messages ?? [],
      taskQueue: d.action.taskQueue,
      spec: d.spec,
      overlap: overlapOf(d.policies.overlap),
      pauseOnFailure: d.policies.pauseOnFailure,
      runningRuns: d.info.runningActions.map((action) => action.workflow.workflowId),
      runsStarted: d.info.numActionsTaken,
      runsSkipped: d.info.numActionsSkippedOverlap,
      createdAt: d.info.createdAt,
    };
  }

  /** Stops starting runs (runs already going go on); `note` says why. */
  async pause(note?: string): Promise<void> {
    await this.#call((handle) => handle.pause(note));
  }

  /** Starts runs again when they are due. */
  async unpause(note?: string): Promise<void> {
    await this.#call((handle) => handle.unpause(note));
  }

  /**
   * Starts a run now, even while paused and while another run is going (as Temporal's trigger
   * does: `"allow-all"`); `options.overlap` applies another policy to this one run instead.
   */
  async trigger(options: { overlap?: ScheduleOverlap } = {}): Promise<void> {
    const overlap = overlapPolicy(options.overlap ?? "allow-all");
    await this.#call((handle) => handle.trigger(overlap));
  }

  /** Starts the runs that were due between `from` and `to` (as if the schedule had run then; the overlap policy applies). */
  async backfill(range: { from: Date; to: Date }): Promise<void> {
    const { from, to } = range;
    if (
      !(from instanceof Date) ||
      !(to instanceof Date) ||
      Number.isNaN(from.getTime()) ||
      Number.isNaN(to.getTime()) ||
      from >= to
    )
      throw new ScheduleOptionsError("backfill", "give `from` and `to` as dates, `from` before `to`");
    await this.#call((handle) => handle.backfill({ start: from, end: to }));
  }

  /**
   * Changes the schedule: its timing (`cron` or `every` replaces the other), zone, jitter, input,
   * context, overlap or `pauseOnFailure`; fields left out keep their value. Checked first, as at
   * creation: a bad value changes nothing.
   */
  async update(changes: ScheduleChanges): Promise<void> {
    const timing = changes.cron !== undefined || changes.every !== undefined ? timingSpec(changes) : undefined;
    const zone = zoneAndJitter(changes);
    const overlap = changes.overlap === undefined ? undefined : overlapPolicy(changes.overlap);
    const pauseOnFailure =
      changes.pauseOnFailure === undefined ? undefined : checkPauseOnFailure(changes.pauseOnFailure);
    await this.#call((handle) =>
      handle.update((previous) => {
        const args = runArgsOf(previous);
        let action = previous.action;
        if (changes.input !== undefined || "context" in changes) {
          const context = "context" in changes ? changes.context : args.context;
          const start = prepareRunStart(args.agent, changes.input ?? args.messages, defined({ context }));
          const { context: _old, ...rest } = args;
          action = {
            ...previous.action,
            args: [{ ...rest, messages: start.args.messages, ...defined({ context: start.args.context }) }],
            staticSummary: start.staticSummary,
          };
        }
        return {
          spec: { ...previous.spec, ...(timing ? { ...timing, calendars: [] } : {}), ...zone },
          action,
          policies: { ...previous.policies, ...defined({ overlap, pauseOnFailure }) },
          state: previous.state,
        };
      }),
    );
  }

  /** Deletes the schedule: it starts no more runs (runs already going go on). */
  async delete(): Promise<void> {
    await this.#call((handle) => handle.delete());
  }
}
