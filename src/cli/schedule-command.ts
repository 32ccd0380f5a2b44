/**
 * `durable-agent schedule create|list|pause|unpause|trigger|delete`: agent schedules (Temporal
 * Schedules whose runs start the agent) from the command line, over `agent.schedule()` and
 * `ai.schedules`. `create` loads the agents module (`--module`) to check the agent and its
 * context, since a schedule outlives the command: a name no module exports would fail every run.
 */
import { defined } from "../core/defined.js";
import {
  createAgentSchedule,
  getSchedule,
  listSchedules,
  ScheduleExistsError,
  ScheduleOptionsError,
  UnknownScheduleError,
  type AgentScheduleOptions,
  type AgentScheduleSummary,
  type ScheduleOverlap,
} from "../schedules/index.js";
import { ContextValidationError, InvalidInputError } from "../errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions } from "./parse-options.js";
import { textTable } from "./text-table.js";

const USAGE = `Usage: durable-agent schedule <create|list|pause|unpause|trigger|delete> ...

Agent schedules: Temporal Schedules that start a run of an agent at every cron time or interval,
on the workers of the task queue. Their runs carry the schedule's id as the search attribute
TemporalScheduledById (\`durable-agent list --query "TemporalScheduledById = '<id>'"\`).

  durable-agent schedule create <scheduleId> <agent> "<input>" --module <file> (--cron <expr> | --every <duration>)
      [--context <json>] [--overlap skip|buffer-one|allow-all|cancel-other] [--timezone <zone>]
      [--jitter <duration>] [--pause-on-failure] [--note <text>] [--task-queue <name>]
      create a schedule of <agent>, an agent the module exports (checked with its context, not run)
  durable-agent schedule list [--json]
      the agent schedules, with their state and next run
  durable-agent schedule pause <scheduleId> [--note <text>]
  durable-agent schedule unpause <scheduleId> [--note <text>]
  durable-agent schedule trigger <scheduleId>
      start a run now (even while paused, or while another run is going)
  durable-agent schedule delete <scheduleId>

Exit codes: 0 done; 1 no such schedule, or the id is taken; 2 Temporal unreachable; 64 bad
arguments (a cron expression, an interval, an agent the module does not export).`;

const CREATE_OPTIONS = {
  module: { type: "string" },
  cron: { type: "string" },
  every: { type: "string" },
  context: { type: "string" },
  overlap: { type: "string" },
  timezone: { type: "string" },
  jitter: { type: "string" },
  "pause-on-failure": { type: "boolean" },
  note: { type: "string" },
  "task-queue": { type: "string" },
  json: { type: "boolean" },
} as const;

function parseContext(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--context must be JSON, e.g. --context '{"team":"ops"}' (${(error as Error).message}).`);
  }
}

async function create(
  positionals: string[],
  values: Record<string, string | boolean | undefined>,
  connection: CliConnection,
  io: CommandIO,
) {
  if (positionals.length !== 3)
    throw new UsageError(
      `create takes <scheduleId> <agent> "<input>" (got ${positionals.length} argument(s)): quote the input.`,
    );
  const [scheduleId, agentName, input] = positionals as [string, string, string];
  const module = values.module as string | undefined;
  if (module === undefined)
    throw new UsageError("create needs --module <file>, the module that exports the agent (checked, not run).");
  const agents = await loadAgents(module);
  const agent = agents.find((candidate) => candidate.name === agentName);
  if (!agent)
    throw new ScheduleOptionsError(
      "agent",
      `the module ${module} exports no agent named "${agentName}" (it exports ${agents.map((a) => `"${a.name}"`).join(", ")})`,
    );
  const options: AgentScheduleOptions = {
    input,
    client: await connection.client(),
    taskQueue: connection.settings(values["task-queue"] as string | undefined).taskQueue,
    pauseOnFailure: values["pause-on-failure"] === true,
    ...defined({
      cron: values.cron as string | undefined,
      every: values.every as string | undefined,
      context: parseContext(values.context as string | undefined),
      overlap: values.overlap as ScheduleOverlap | undefined,
      timezone: values.timezone as string | undefined,
      jitter: values.jitter as string | undefined,
      note: values.note as string | undefined,
    }),
  };
  const schedule = await createAgentSchedule(agent, scheduleId, options);
  const { nextRuns, taskQueue } = await schedule.describe();
  io.stdout(
    `Schedule ${scheduleId} of agent "${agentName}" on task queue ${taskQueue}: next run ${nextRuns[0]?.toISOString() ?? "(none)"}.`,
  );
}

function table(schedules: AgentScheduleSummary[]): string[] {
  if (schedules.length === 0) return ["No agent schedules."];
  const header = ["ID", "AGENT", "STATE", "NEXT RUN", "NOTE"];
  const cells = schedules.map((s) => [
    s.id,
    s.agent,
    s.paused ? "paused" : "active",
    s.nextRuns[0]?.toISOString() ?? "-",
    s.note ?? "",
  ]);
  return textTable(header, cells);
}

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, CREATE_OPTIONS);
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  const [action, ...rest] = positionals;
  const allowed: Record<string, string[]> = {
    create: Object.keys(CREATE_OPTIONS).filter((name) => name !== "json"),
    list: ["json"],
    pause: ["note"],
    unpause: ["note"],
    trigger: [],
    delete: [],
  };
  if (action === undefined || !(action in allowed))
    throw new UsageError(`Unknown action ${JSON.stringify(action ?? "")}: use ${Object.keys(allowed).join(", ")}.`);
  const misplaced = Object.keys(values).filter((name) => name !== "help" && !allowed[action]!.includes(name));
  if (misplaced.length > 0)
    throw new UsageError(`${misplaced.map((name) => `--${name}`).join(", ")} does not apply to ${action}.`);
  try {
    if (action === "create") await create(rest, values, connection, io);
    else if (action === "list") {
      const schedules = await listSchedules({ client: await connection.client() });
      for (const line of values.json ? [JSON.stringify(schedules)] : table(schedules)) io.stdout(line);
    } else {
      if (rest.length !== 1) throw new UsageError(`${action} takes one <scheduleId> (got ${rest.length} argument(s)).`);
      const schedule = getSchedule(rest[0]!, { client: await connection.client() });
      const note = values.note as string | undefined;
      if (action === "pause") await schedule.pause(note);
      else if (action === "unpause") await schedule.unpause(note);
      else if (action === "trigger") await schedule.trigger();
      else await schedule.delete();
      const done = { pause: "paused", unpause: "unpaused", trigger: "triggered: a run starts now", delete: "deleted" };
      io.stdout(`Schedule ${schedule.id} ${done[action as keyof typeof done]}.`);
    }
    return EXIT.ok;
  } catch (error) {
    if (
      ScheduleOptionsError.isInstance(error) ||
      InvalidInputError.isInstance(error) ||
      ContextValidationError.isInstance(error)
    ) {
      io.stderr(`${error.name}: ${error.message}`);
      return EXIT.usage;
    }
    if (ScheduleExistsError.isInstance(error) || UnknownScheduleError.isInstance(error)) {
      io.stderr(`${error.name}: ${error.message}`);
      return EXIT.failed;
    }
    throw error;
  }
}

/** `durable-agent schedule`. */
export const scheduleCommand: Command = {
  summary: "create, list, pause, unpause, trigger or delete an agent's Temporal Schedule",
  usage: USAGE,
  run,
};
