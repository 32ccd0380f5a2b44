/**
 * `durable-agent eval <module>`: runs the eval a module exports (`agent`, `cases`, `scorers`,
 * optionally `trials`) against the Temporal server at --address (else TEMPORAL_ADDRESS), with a worker for the
 * agent in this process (unless `--task-queue` names a queue your own workers poll).
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Agent } from "../facade/define-agent.js";
import { TemporalConnectionError, TlsConfigError } from "../errors.js";
import { createCliWorker } from "./cli-worker.js";
import { compareReports, formatComparison } from "../eval/compare-reports.js";
import type { EvalCase } from "../datasets/eval-case.js";
import type { EvalApprovalDecision } from "../eval/eval-approvals.js";
import { EvalReportFormatError } from "../eval/errors.js";
import { importUserModule } from "./import-module.js";
import type { UnmatchedToolCalls } from "../core/playback.js";
import { readCases } from "../datasets/case-file.js";
import { CaseFileError } from "../datasets/errors.js";
import { isRecordedCase } from "../datasets/recorded-case.js";
import { recordedBaseline } from "../eval/recorded-baseline.js";
import { percent } from "../eval/format-table.js";
import { parseReport, type EvalReport } from "../eval/report.js";
import type { EvalProgress } from "../eval/run-eval.js";
import type { Scorer } from "../eval/scorer.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { connectionProblem, type CliConnection } from "./connection-options.js";
import { duration } from "./parse-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent eval <module> [options]

Runs the eval that <module> exports: \`agent\` (from ai.agent), \`cases\` ({ name, input }[]),
\`scorers\`, and optionally \`trials\`. Connects to --address, else TEMPORAL_ADDRESS (default
localhost:7233), and runs a worker for the agent in this process on a fresh task queue, unless
--task-queue is given.

Options:
  --trials <n>             runs per case (default: the module's \`trials\`, else 1)
  --concurrency <n>        runs in flight at once (default 4)
  --timeout <duration>     a run that takes longer is terminated and counted as an infrastructure
                           error: 90s, 10m, "1 hour" (default 10m; a bare number is read as
                           seconds, which is deprecated)
  --min-pass-rate <0..1>   the gate on the pass rate of judged rows (default 1)
  --json <file>            write the JSON report (schemaVersion 1, docs/eval-report-schema.md)
  --junit <file>           write a JUnit XML report
  --cases <file>           play back a case file (durable-agent dataset) instead of the module's \`cases\`
  --tools <live|recorded>  recorded: answer tool calls from each case's recording, executing no
                           tool (default with --cases); live: run the real tools (default otherwise)
  --unmatched-tool-calls <refuse|execute|fail>
                           with recorded tools, a call the recording does not hold (default refuse)
  --approvals <approve|reject>
                           decide every tool call that waits for approval as soon as it waits,
                           recorded by "eval" (default: calls wait for a person or their timeout)
  --baseline <file>        a JSON report to compare with: prints regressions and fixes by case, and
                           per scorer both pass rates with 95% Wilson intervals and whether the
                           difference is significant (two-sided Fisher exact test, p < 0.05);
                           \`--baseline recorded\` compares with the recordings themselves (the
                           scorers applied to each recorded run, no model call)
  --html <file>            write the report as one self-contained HTML page
  --fail-on-regression     exit 1 when a case passed in the baseline and fails now
  --task-queue <name>      run on workers you started yourself; start no worker here
  --workflow-bundle <file> a prebuilt workflow bundle (bundleAgentWorkflows().code) for the
                           in-process worker, to skip bundling at start (CI caches)
  -h, --help               show this help

Exit codes: 0 passed; 1 below --min-pass-rate, a scorer error or a regression (with
--fail-on-regression); 2 an infrastructure error (Temporal unreachable, the model API down, a
run that did not complete); 64 bad arguments or module.`;

/** What the eval module must export. */
interface EvalModule {
  agent: Agent;
  cases: EvalCase[];
  scorers: Scorer[];
  trials?: number;
}

interface EvalArgs {
  module: string;
  cases?: string;
  tools?: "live" | "recorded";
  unmatchedToolCalls?: UnmatchedToolCalls;
  approvals?: EvalApprovalDecision;
  html?: string;
  trials?: number;
  concurrency?: number;
  timeoutMs: number;
  /** Deprecated forms used, to warn about. */
  warnings: string[];
  minPassRate: number;
  json?: string;
  junit?: string;
  baseline?: string;
  failOnRegression: boolean;
  taskQueue?: string;
  workflowBundle?: string;
}

function number(
  flag: string,
  text: string | undefined,
  check: (n: number) => boolean,
  expected: string,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || !check(value))
    throw new UsageError(`--${flag} must be ${expected} (got "${text}").`);
  return value;
}

function parse(args: string[]): EvalArgs | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        trials: { type: "string" },
        concurrency: { type: "string" },
        timeout: { type: "string" },
        "min-pass-rate": { type: "string" },
        json: { type: "string" },
        junit: { type: "string" },
        baseline: { type: "string" },
        cases: { type: "string" },
        tools: { type: "string" },
        "unmatched-tool-calls": { type: "string" },
        approvals: { type: "string" },
        html: { type: "string" },
        "fail-on-regression": { type: "boolean" },
        "task-queue": { type: "string" },
        "workflow-bundle": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the eval module: durable-agent eval <module>."
        : `Expected one module, got ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const integer = (n: number) => Number.isInteger(n) && n >= 1;
  const tools = values.tools;
  if (tools !== undefined && tools !== "live" && tools !== "recorded")
    throw new UsageError(`--tools must be live or recorded (got "${tools}").`);
  const unmatched = values["unmatched-tool-calls"];
  if (unmatched !== undefined && !["refuse", "execute", "fail"].includes(unmatched))
    throw new UsageError(`--unmatched-tool-calls must be refuse, execute or fail (got "${unmatched}").`);
  const approvals = values.approvals;
  if (approvals !== undefined && approvals !== "approve" && approvals !== "reject")
    throw new UsageError(`--approvals must be approve or reject (got "${approvals}").`);
  return {
    module: positionals[0]!,
    cases: values.cases,
    ...defined({
      tools: tools as EvalArgs["tools"],
      unmatchedToolCalls: unmatched as UnmatchedToolCalls | undefined,
      approvals: approvals as EvalArgs["approvals"],
    }),
    html: values.html,
    trials: number("trials", values.trials, integer, "a positive integer"),
    concurrency: number("concurrency", values.concurrency, integer, "a positive integer"),
    ...timeoutOf(values.timeout),
    minPassRate: number("min-pass-rate", values["min-pass-rate"], (n) => n >= 0 && n <= 1, "a number from 0 to 1") ?? 1,
    json: values.json,
    junit: values.junit,
    baseline: values.baseline,
    failOnRegression: values["fail-on-regression"] ?? false,
    taskQueue: values["task-queue"],
    workflowBundle: values["workflow-bundle"],
  };
}

/** \`--timeout\`: a duration; a bare number is the old form, in seconds. Default 10 minutes. */
function timeoutOf(text: string | undefined): { timeoutMs: number; warnings: string[] } {
  if (text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text))
    return { timeoutMs: duration("timeout", text) ?? 600_000, warnings: [] };
  const seconds = number("timeout", text, (n) => n > 0, 'a positive duration such as 90s, 10m or "1 hour"') as number;
  return {
    timeoutMs: seconds * 1000,
    warnings: [`--timeout ${text.trim()} (bare seconds) is deprecated: write --timeout ${text.trim()}s.`],
  };
}

async function readCaseFile(path: string): Promise<EvalCase[]> {
  try {
    return await readCases(path);
  } catch (error) {
    throw new UsageError(
      `--cases ${path}: ${CaseFileError.isInstance(error) ? error.message : `cannot read it (${(error as Error).message})`}`,
    );
  }
}

async function loadModule(path: string, casesFromFile = false): Promise<EvalModule> {
  let exported: Record<string, unknown>;
  try {
    exported = await importUserModule(path);
  } catch (error) {
    if (UsageError.isInstance(error)) throw error;
    throw new UsageError(`Cannot load the eval module ${path}: ${(error as Error).message}`);
  }
  const agent = exported.agent as Partial<Agent> | undefined;
  const missing = [
    ...(typeof agent?.eval === "function" && typeof agent.name === "string" ? [] : ["`agent` (an ai.agent(...))"]),
    ...(Array.isArray(exported.cases) || casesFromFile ? [] : ["`cases` (an array of { name, input })"]),
    ...(Array.isArray(exported.scorers) ? [] : ["`scorers` (an array of scorers)"]),
  ];
  if (missing.length > 0) throw new UsageError(`The eval module ${path} must export ${missing.join(", ")}.`);
  if (exported.trials !== undefined && !(Number.isInteger(exported.trials) && (exported.trials as number) >= 1))
    throw new UsageError(`The eval module's \`trials\` must be a positive integer.`);
  return exported as unknown as EvalModule;
}

async function readBaseline(path: string | undefined): Promise<EvalReport | undefined> {
  if (path === undefined || path === "recorded") return undefined;
  try {
    return parseReport(await readFile(path, "utf8"));
  } catch (error) {
    const problem = EvalReportFormatError.isInstance(error)
      ? error.message
      : `cannot read it (${(error as Error).message})`;
    throw new UsageError(`--baseline ${path}: ${problem}`);
  }
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(resolve(path)), { recursive: true });
  await writeFile(path, text);
}

function progressLine(progress: EvalProgress): string {
  const counts = (outcome: string) => progress.outcomes.filter((o) => o === outcome).length;
  const verdict =
    counts("infrastructure-error") > 0
      ? "INFRA"
      : counts("fail") > 0
        ? counts("pass") > 0
          ? "FLAKY"
          : "FAIL"
        : counts("error") > 0
          ? "ERROR"
          : counts("pass") > 0
            ? "pass"
            : "n/a";
  const trials = progress.outcomes.length > 1 ? ` [${progress.outcomes.join(", ")}]` : "";
  return `[${progress.finished}/${progress.total}] ${verdict.padEnd(5)} ${progress.case}${trials} (${(progress.durationMs / 1000).toFixed(1)}s)`;
}

/** Runs the eval with a worker in this process, or on the given task queue. */
async function runWithWorker(
  module: EvalModule,
  args: EvalArgs,
  connection: CliConnection,
  io: CommandIO,
): Promise<EvalReport> {
  const client = await connection.client();
  const options = {
    cases: module.cases,
    scorers: module.scorers,
    ...(args.tools ? { tools: args.tools } : {}),
    ...(args.unmatchedToolCalls ? { unmatchedToolCalls: args.unmatchedToolCalls } : {}),
    ...(args.approvals ? { approvals: args.approvals } : {}),
    trials: args.trials ?? module.trials,
    concurrency: args.concurrency,
    timeout: args.timeoutMs,
    client,
    onCaseFinished: (progress: EvalProgress) => io.stdout(progressLine(progress)),
  };
  if (args.taskQueue !== undefined) {
    io.stdout(
      `Running ${module.cases.length} case(s) of agent "${module.agent.name}" on task queue ${args.taskQueue} (your workers)...`,
    );
    return module.agent.eval({ ...options, taskQueue: args.taskQueue });
  }
  const taskQueue = `durable-agent-eval-${randomUUID()}`;
  io.stdout(`Starting a worker for agent "${module.agent.name}" on task queue ${taskQueue}...`);
  const worker = await createCliWorker([module.agent], {
    taskQueue,
    namespace: connection.settings().namespace,
    connect: () => connection.workerConnection(),
    workflowBundle: args.workflowBundle,
  });
  io.stdout(`Running ${module.cases.length} case(s)...`);
  return worker.runUntil(module.agent.eval({ ...options, taskQueue }));
}

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const args = parse(argv);
  if (args === "help") {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  for (const warning of args.warnings) io.stderr(`Warning: ${warning}`);
  if (args.workflowBundle !== undefined && !existsSync(args.workflowBundle))
    throw new UsageError(`--workflow-bundle ${args.workflowBundle}: no such file.`);
  const module = { ...(await loadModule(args.module, args.cases !== undefined)) };
  if (args.cases !== undefined) {
    module.cases = await readCaseFile(args.cases);
    args.tools ??= "recorded";
  }
  let baseline = await readBaseline(args.baseline);
  if (args.baseline === "recorded") {
    const recorded = module.cases.filter(isRecordedCase);
    if (recorded.length !== module.cases.length)
      throw new UsageError(
        "--baseline recorded compares with recordings: give --cases <file> (or a module whose cases come from casesFromRuns).",
      );
    baseline = await recordedBaseline(recorded, module.scorers, { agent: module.agent.name });
  }
  try {
    await connection.client();
  } catch (error) {
    io.stderr(
      TemporalConnectionError.isInstance(error) || TlsConfigError.isInstance(error)
        ? connectionProblem(error)
        : `Cannot connect to Temporal at ${connection.settings().address}: ${(error as Error).message}`,
    );
    return EXIT.infrastructure;
  }
  let report: EvalReport;
  try {
    report = await runWithWorker(module, args, connection, io);
  } catch (error) {
    if (UsageError.isInstance(error)) throw error;
    io.stderr(`The eval could not run: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    return (error as { name?: string }).name === "EvalOptionsError" ? EXIT.usage : EXIT.infrastructure;
  }

  io.stdout(`\n${report.toTable()}`);
  const problems = report.describeProblems();
  if (problems) io.stdout(`\n${problems}`);
  const gate = report.check({ minPassRate: args.minPassRate });
  let exitCode: number = gate.exitCode;
  if (baseline) {
    const comparison = compareReports(baseline, report);
    io.stdout(`\n${formatComparison(comparison)}`);
    if (args.failOnRegression && comparison.regressions.length > 0) {
      gate.problems.push(`${comparison.regressions.length} case(s) passed in the baseline and fail now`);
      exitCode = Math.max(exitCode, EXIT.failed);
    }
  }
  if (args.json) {
    await write(args.json, `${JSON.stringify(report, null, 2)}\n`);
    io.stdout(`JSON report: ${args.json}`);
  }
  if (args.junit) {
    await write(args.junit, report.toJUnit());
    io.stdout(`JUnit report: ${args.junit}`);
  }
  if (args.html) {
    await write(args.html, report.toHtml(baseline ? { baseline } : {}));
    io.stdout(`HTML report: ${args.html}`);
  }
  io.stdout(
    exitCode === EXIT.ok
      ? `\nPASSED: pass rate ${percent(report.totals.passRate)} (gate ${percent(args.minPassRate)})`
      : `\nFAILED (exit ${exitCode}): ${gate.problems.join("; ")}`,
  );
  return exitCode;
}

/** `durable-agent eval`. */
export const evalCommand: Command = {
  summary: "run an eval module's cases as durable runs, score them, gate on the pass rate",
  usage: USAGE,
  run,
};
