/**
 * Issue 6, item 5: the `durable-agent` CLI's `worker`, `run`, `trace`, `list` and `dev`, each as a
 * child process against the suite's Temporal server (`dev` against a dev server of its own).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { main } from "../src/cli/index.js";
import type { RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { cli, startCli, type CliProcess } from "./support/cli-helpers.js";
import { connectHarness, taskQueue, type Harness } from "./support/harness.js";
import { freePort } from "./support/ops-helpers.js";

const AGENTS = "test/fixtures/cli-agents.ts";
const TIMEOUT = 120_000;
const bundle = () => ["--workflow-bundle", inject("workflowBundlePath")];

/** The coach offers instead of acting, is re-prompted, calls the tool, then confirms; the greeter greets. */
function scriptedCoach({ body }: ScriptedRequest) {
  const messages = body.messages;
  if (messages.some((m) => m.role === "tool")) return "Done: squats are now lunges.";
  const users = messages.filter((m) => m.role === "user");
  if (users.length >= 2) return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
  if (/swap/i.test(String(users[0]?.content))) return "Lunges are a great swap for squats. Want me to swap that?";
  return "Hello from the scripted greeter!";
}

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(scriptedCoach);
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

describe("worker, run, trace and list against a worker in its own process", () => {
  const queue = taskQueue();
  let worker: CliProcess;
  let runStdout = "";
  let workflowId = "";

  beforeAll(async () => {
    worker = startCli(["worker", AGENTS, "--task-queue", queue, "--search-attributes", ...bundle()], { OPENAI_BASE_URL: model.baseURL });
    await worker.waitForLine("durable-agent worker: serving");
  }, TIMEOUT);
  afterAll(() => worker.stop("SIGKILL"));

  it("run prints the live stream (answer text, re-prompt, tool call) and then the trace; the run is the agent's, with the given id", async () => {
    const id = `cli-${Date.now()}`;
    const { code, stdout, stderr } = await cli(["run", "cli-coach", "Swap squats for lunges", "--task-queue", queue, "--id", id]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    runStdout = stdout;
    workflowId = /^Run (\S+) of agent "cli-coach" on task queue /m.exec(stdout)![1]!;
    expect(workflowId).toBe(`cli-coach-${id}`);
    const [live, trace] = stdout.split("\nTrace:\n") as [string, string];
    expect(live.split("\n").slice(1)).toEqual([
      "── trip 1 ──",
      "Lunges are a great swap for squats. Want me to swap that?",
      expect.stringMatching(/^↻ re-prompt \(act-when-asked\): ".+"$/),
      "── trip 2 ──",
      expect.stringMatching(/^→ tool update_plan \(call_\w+\)$/),
      "← tool update_plan: ok",
      "── trip 3 ──",
      "Done: squats are now lunges.",
      "■ stopped: answered after 3 trip(s), 1 tool call(s)",
      "",
    ]);
    expect(trace.trimEnd().split("\n")).toEqual([
      '  trip 1   model answered "Lunges are a great swap for squats. Want me to swap that?"',
      expect.stringMatching(/^ {2}trip 1 {3}re-prompt \(act-when-asked\): ".+"$/),
      "  trip 2   model asked for update_plan",
      "  trip 2   tool update_plan: ok",
      '  trip 3   model answered "Done: squats are now lunges."',
      "  trip 3   run stopped: answered (the model answered without tool calls on trip 3)",
    ]);
  }, TIMEOUT);

  it("trace <workflowId> prints the finished run's outcome and the same trace; --json gives the trace itself", async () => {
    const text = await cli(["trace", workflowId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Run ${workflowId} (cli-coach: Swap squats for lunges): stopped: answered after 3 trip(s), 1 tool call(s)\n`);
    expect(text.stdout.split("\nTrace:\n")[1]).toBe(runStdout.split("\nTrace:\n")[1]);

    const json = await cli(["trace", workflowId, "--json"]);
    expect(json.code).toBe(0);
    const result = (await harness.client.workflow.getHandle(workflowId).result()) as RunResult;
    expect(JSON.parse(json.stdout)).toEqual(result.trace);
  }, TIMEOUT);

  it("list finds the run by a visibility query, and by agent with --agent", async () => {
    const byId = await cli(["list", "--query", `WorkflowId = '${workflowId}'`]);
    expect(byId.code).toBe(0);
    const [header, row, ...rest] = byId.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^WORKFLOW ID\s+STATUS\s+STARTED\s+AGENT\s+STOP REASON\s+TRIPS$/);
    expect(row).toMatch(new RegExp(`^${workflowId}\\s+COMPLETED\\s+\\d{4}-\\d\\d-\\d\\dT`));
    expect(rest).toEqual([]);

    const byAgent = await cli(["list", "--agent", "cli-coach", "--status", "completed", "--json"]);
    expect(byAgent.code).toBe(0);
    const rows = byAgent.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(rows).toContainEqual(expect.objectContaining({ workflowId, status: "COMPLETED", agent: "cli-coach", stopReason: "answered", trips: 3 }));
    expect(rows.every((r) => r.agent === "cli-coach")).toBe(true);
  }, TIMEOUT);

  it("run of an agent the worker does not serve exits 1 naming the agents it does serve", async () => {
    const { code, stderr } = await cli(["run", "no-such-agent", "Hi", "--task-queue", queue]);
    expect(code).toBe(1);
    expect(stderr).toContain('The run failed: UnknownAgentError: No agent named "no-such-agent" is registered on this worker (registered: "cli-coach", "cli-greeter")');
  }, TIMEOUT);

  it("the worker shuts down gracefully on SIGTERM and exits 0", async () => {
    const exit = await worker.stop("SIGTERM");
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain("durable-agent worker: stopped");
  }, TIMEOUT);
});

describe("run --module: a worker in the CLI's own process", () => {
  it("runs the agent, --no-stream-text prints the answer whole, and warns about nothing", async () => {
    const { code, stdout, stderr } = await cli(["run", "cli-greeter", "Hi", "--module", AGENTS, "--task-queue", taskQueue(), "--no-stream-text", ...bundle()], { OPENAI_BASE_URL: model.baseURL });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("── trip 1 ──\nHello from the scripted greeter!\n■ stopped: answered after 1 trip(s), 0 tool call(s)\n");
  }, TIMEOUT);

  it("warns when no worker polls the task queue (the run waits for one)", async () => {
    const queue = taskQueue();
    const run = startCli(["run", "cli-greeter", "Hi", "--task-queue", queue]);
    const started = await run.waitForLine("Run cli-greeter-");
    const warning = await run.waitForLine("Warning: No worker polls", "stderr");
    await run.stop("SIGKILL");
    expect(warning).toContain(`No worker polls task queue "${queue}": run ${started.split(" ")[1]} of agent "cli-greeter" is waiting for one`);
    expect(warning).toContain(`\`npx durable-agent worker ./agents.js --task-queue ${queue}\``);
    await harness.client.workflow.getHandle(started.split(" ")[1]!).terminate("test over");
  }, TIMEOUT);
});

describe("dev <module>", () => {
  it("starts a dev server with the Web UI and a worker; runs complete on it; SIGINT stops both", async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = startCli(["dev", AGENTS, "--port", String(port), "--ui-port", String(uiPort), ...bundle()], { OPENAI_BASE_URL: model.baseURL });
    try {
      await dev.waitForLine("Ctrl-C to stop.");
      const ui = await fetch(`http://localhost:${uiPort}/`);
      expect(ui.status).toBe(200);
      const run = await cli(["run", "cli-greeter", "Hi"], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Hello from the scripted greeter!");
      const list = await cli(["list", "--agent", "cli-greeter", "--json"], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
      expect(list.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))).toMatchObject([{ agent: "cli-greeter", status: "COMPLETED", trips: 1 }]);
    } finally {
      const exit = await dev.stop("SIGINT");
      expect(exit.code).toBe(0);
      expect(exit.stdout).toContain(`Web UI at http://localhost:${uiPort}`);
      expect(exit.stdout).toContain("Stopped.");
    }
  }, TIMEOUT);
});

/** Runs the CLI's `main` in this process, capturing what it prints (for arguments it rejects before connecting). */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (line) => out.push(line), stderr: (line) => err.push(line), write: (text) => out.push(text) });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("help and errors", () => {
  it("the bin launcher lists every command; each command's --help prints its usage and exit codes", async () => {
    const top = await cli(["--help"], {}, ["bin/durable-agent.js"]);
    expect(top.code).toBe(0);
    for (const command of ["dev", "worker", "run", "trace", "list", "eval"]) expect(top.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));
    for (const command of ["dev", "worker", "run", "trace", "list"]) {
      const { code, stdout } = await inProcess([command, "--help"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`Usage: durable-agent ${command}`);
      expect(stdout).toContain("Exit codes:");
    }
  }, TIMEOUT);

  it.each([
    [["run"], 'Name the agent and the input: durable-agent run <agent> "<input>"'],
    [["run", "coach", "swap", "squats"], 'Expected <agent> and one "<input>", got 3 arguments: quote the input.'],
    [["run", "coach", "  "], "The input is empty"],
    [["run", "coach", "Hi", "--workflow-bundle", "x.js"], "--workflow-bundle is for the worker that --module starts"],
    [["run", "coach", "Hi", "--module", AGENTS], 'The module test/fixtures/cli-agents.ts has no agent named "coach" (it exports "cli-coach", "cli-greeter")'],
    [["worker"], "Name the module that exports your agents"],
    [["worker", "test/fixtures/nope.ts"], "Cannot load the agents module test/fixtures/nope.ts"],
    [["worker", "test/support/harness.ts"], "The module test/support/harness.ts exports no agent"],
    [["worker", AGENTS, "--workflow-bundle", "nope.js"], "--workflow-bundle nope.js: no such file."],
    [["worker", AGENTS, "--bogus"], "Unknown option '--bogus'"],
    [["dev", AGENTS, "--port", "70000"], '--port must be a port from 1 to 65535 (got "70000")'],
    [["dev", AGENTS, "--port", "7000", "--ui-port", "7000"], "--ui-port must differ from --port (both 7000)"],
    [["trace"], "Name the run: durable-agent trace <workflowId>"],
    [["list", "--status", "sleeping"], "--status must be one of running, completed, failed, cancelled, terminated, timed-out, continued-as-new"],
    [["list", "--query", "x", "--agent", "a"], "--query replaces --agent and --status"],
    [["list", "--limit", "0"], '--limit must be a positive integer (got "0")'],
  ])("%j exits 64 naming what to fix", async (args, message) => {
    const { code, stderr } = await inProcess(args);
    expect(code).toBe(64);
    expect(stderr).toContain(message);
    expect(stderr).toContain(`Usage: durable-agent ${args[0]}`);
  });

  it.concurrent.each([["run", "cli-coach", "Hi"], ["trace", "some-id"], ["list"], ["worker", AGENTS]])("%s exits 2 naming the address when Temporal cannot be reached", async (...args) => {
    const { code, stderr } = await cli(args, { TEMPORAL_ADDRESS: "127.0.0.1:1" });
    expect(code).toBe(2);
    expect(stderr).toContain("Cannot reach the Temporal server at 127.0.0.1:1");
  }, TIMEOUT);

  it("trace of an unknown workflow id exits 1 and says how to find runs", async () => {
    const { code, stderr } = await cli(["trace", "no-such-run"]);
    expect(code).toBe(1);
    expect(stderr).toContain('No run with workflow id "no-such-run" in namespace "default": check the id (`durable-agent list` shows recent runs)');
  }, TIMEOUT);

  it("list with a query the server rejects exits 64 and quotes the query", async () => {
    const { code, stderr } = await cli(["list", "--query", "NoSuchAttribute = 'x'"]);
    expect(code).toBe(64);
    expect(stderr).toContain(`The server rejected the visibility query "NoSuchAttribute = 'x'"`);
  }, TIMEOUT);
});
