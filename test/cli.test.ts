/**
 * Issue 6, item 5: the `durable-agent` CLI's `worker`, `run`, `trace`, `list` and `dev`, each as a
 * child process against the suite's Temporal server (`dev` against a dev server of its own).
 * Issue 35: `run --context --json`, options before or after the command, `--version`, and the exit
 * codes as docs/cli.md tables them. Approvals: test/cli-approvals.test.ts; the connection options'
 * TLS and API key: test/cli-connection.test.ts.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EXIT } from "../src/cli/command.js";
import { COMMANDS } from "../src/cli/index.js";
import type { RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { cli, runMain as inProcess, startCli, type CliProcess } from "./support/cli-helpers.js";
import { connectHarness, taskQueue, type Harness } from "./support/harness.js";
import { freePort } from "./support/ops-helpers.js";

const AGENTS = "test/fixtures/cli-agents.ts";
const TIMEOUT = 120_000;
const bundle = () => ["--workflow-bundle", inject("workflowBundlePath")];

/** The coach offers instead of acting, is re-prompted, calls the tool, then confirms; the greeter greets; the concierge names its user. */
function scriptedCoach({ body }: ScriptedRequest) {
  const messages = body.messages;
  const system = String(messages.find((m) => m.role === "system")?.content ?? "");
  if (system.startsWith("Concierge for ")) return `${system}: at your service.`;
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
    worker = startCli(["worker", AGENTS, "--task-queue", queue, "--search-attributes", ...bundle()], {
      OPENAI_BASE_URL: model.baseURL,
    });
    await worker.waitForLine("durable-agent worker: serving");
  }, TIMEOUT);
  afterAll(() => worker.stop("SIGKILL"));

  it(
    "run prints the live stream (answer text, re-prompt, tool call) and then the trace; the run is the agent's, with the given id",
    async () => {
      const id = `cli-${Date.now()}`;
      const { code, stdout, stderr } = await cli([
        "run",
        "cli-coach",
        "Swap squats for lunges",
        "--task-queue",
        queue,
        "--id",
        id,
      ]);
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
    },
    TIMEOUT,
  );

  it(
    "trace <workflowId> prints the finished run's outcome and the same trace; --json gives the trace itself",
    async () => {
      const text = await cli(["trace", workflowId]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        `Run ${workflowId} (cli-coach: Swap squats for lunges): stopped: answered after 3 trip(s), 1 tool call(s)\n`,
      );
      expect(text.stdout.split("\nTrace:\n")[1]).toBe(runStdout.split("\nTrace:\n")[1]);

      const json = await cli(["trace", workflowId, "--json"]);
      expect(json.code).toBe(0);
      const result = (await harness.client.workflow.getHandle(workflowId).result()) as RunResult;
      expect(JSON.parse(json.stdout)).toEqual(result.trace);
    },
    TIMEOUT,
  );

  it(
    "list finds the run by a visibility query, and by agent with --agent",
    async () => {
      const byId = await cli(["list", "--query", `WorkflowId = '${workflowId}'`]);
      expect(byId.code).toBe(0);
      const [header, row, ...rest] = byId.stdout.trimEnd().split("\n");
      expect(header).toMatch(/^WORKFLOW ID\s+STATUS\s+STARTED\s+AGENT\s+STOP REASON\s+TRIPS$/);
      expect(row).toMatch(new RegExp(`^${workflowId}\\s+COMPLETED\\s+\\d{4}-\\d\\d-\\d\\dT`));
      expect(rest).toEqual([]);

      const byAgent = await cli(["list", "--agent", "cli-coach", "--status", "completed", "--json"]);
      expect(byAgent.code).toBe(0);
      const rows = byAgent.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(rows).toContainEqual(
        expect.objectContaining({
          workflowId,
          status: "COMPLETED",
          agent: "cli-coach",
          stopReason: "answered",
          trips: 3,
        }),
      );
      expect(rows.every((r) => r.agent === "cli-coach")).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "run of an agent the worker does not serve exits 1 naming the agents it does serve",
    async () => {
      const { code, stderr } = await cli(["run", "no-such-agent", "Hi", "--task-queue", queue]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        'The run failed: UnknownAgentError: No agent named "no-such-agent" is registered on this worker (registered: "cli-coach", "cli-concierge", "cli-greeter")',
      );
    },
    TIMEOUT,
  );

  it(
    "run --context --json: the context reaches the agent (its instructions name the user), and stdout is the run's result as JSON",
    async () => {
      const { code, stdout, stderr } = await cli([
        "run",
        "cli-concierge",
        "Hi",
        "--task-queue",
        queue,
        "--context",
        '{"userId":"u-42"}',
        "--json",
      ]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const result = JSON.parse(stdout) as RunResult;
      expect(result).toMatchObject({
        reply: "Concierge for u-42: at your service.",
        stopReason: "answered",
        trips: 1,
        workflowId: expect.stringMatching(/^cli-concierge-/),
      });
      expect(result).toEqual(await harness.client.workflow.getHandle(result.workflowId).result());
    },
    TIMEOUT,
  );

  it(
    "run --json of a run that fails exits 1 with the typed error on stderr and nothing on stdout",
    async () => {
      const { code, stdout, stderr } = await cli(["run", "no-such-agent", "Hi", "--task-queue", queue, "--json"]);
      expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
      expect(stderr).toContain("The run failed: UnknownAgentError:");
    },
    TIMEOUT,
  );

  it(
    "connection options go before or after the command, and win over their environment variables",
    async () => {
      const address = inject("temporalAddress");
      const wrong = { TEMPORAL_ADDRESS: "127.0.0.1:1", TEMPORAL_NAMESPACE: "no-such-namespace" };
      const before = await cli(
        ["--address", address, "--namespace", "default", "run", "cli-greeter", "Hi", "--task-queue", queue, "--json"],
        wrong,
      );
      expect({ code: before.code, stderr: before.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(before.stdout)).toMatchObject({ reply: "Hello from the scripted greeter!" });
      const after = await cli(["trace", workflowId, "--json", `--address=${address}`, "--namespace", "default"], wrong);
      expect(after.code).toBe(0);
      expect(JSON.parse(after.stdout)).toEqual(JSON.parse((await cli(["trace", workflowId, "--json"])).stdout));
      const envOnly = await cli(["trace", workflowId], wrong);
      expect(envOnly.code).toBe(2);
      expect(envOnly.stderr).toContain("Cannot reach the Temporal server at 127.0.0.1:1");
      expect(envOnly.stderr).toContain("(Or give --address <host:port>.)");
    },
    TIMEOUT,
  );

  it(
    "the worker shuts down gracefully on SIGTERM and exits 0",
    async () => {
      const exit = await worker.stop("SIGTERM");
      expect(exit.code).toBe(0);
      expect(exit.stdout).toContain("durable-agent worker: stopped");
    },
    TIMEOUT,
  );
});

describe("run --module: a worker in the CLI's own process", () => {
  it(
    "runs the agent, --no-stream-text prints the answer whole, and warns about nothing",
    async () => {
      const { code, stdout, stderr } = await cli(
        ["run", "cli-greeter", "Hi", "--module", AGENTS, "--task-queue", taskQueue(), "--no-stream-text", ...bundle()],
        { OPENAI_BASE_URL: model.baseURL },
      );
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toContain(
        "── trip 1 ──\nHello from the scripted greeter!\n■ stopped: answered after 1 trip(s), 0 tool call(s)\n",
      );
    },
    TIMEOUT,
  );

  it("with --module, a --context the agent's contextSchema rejects exits 64 before any run starts", async () => {
    const { code, stderr } = await inProcess([
      "run",
      "cli-concierge",
      "Hi",
      "--module",
      AGENTS,
      "--context",
      '{"userId":7}',
      "--address",
      "127.0.0.1:1",
    ]);
    expect(code).toBe(64);
    expect(stderr).toContain(
      "--context: Invalid run context: ✖ Invalid input: expected string, received number → at userId",
    );
    expect(stderr).toContain("Usage: durable-agent run");
  });

  it(
    "warns when no worker polls the task queue (the run waits for one)",
    async () => {
      const queue = taskQueue();
      const run = startCli(["run", "cli-greeter", "Hi", "--task-queue", queue]);
      const started = await run.waitForLine("Run cli-greeter-");
      const warning = await run.waitForLine("Warning: No worker polls", "stderr");
      await run.stop("SIGKILL");
      expect(warning).toContain(
        `No worker polls task queue "${queue}": run ${started.split(" ")[1]} of agent "cli-greeter" is waiting for one`,
      );
      expect(warning).toContain(`\`npx durable-agent worker ./agents.js --task-queue ${queue}\``);
      await harness.client.workflow.getHandle(started.split(" ")[1]!).terminate("test over");
    },
    TIMEOUT,
  );
});

describe("dev <module>", () => {
  it(
    "starts a dev server with the Web UI and a worker; runs complete on it; SIGINT stops both",
    async () => {
      const [port, uiPort] = [await freePort(), await freePort()];
      const dev = startCli(["dev", AGENTS, "--port", String(port), "--ui-port", String(uiPort), ...bundle()], {
        OPENAI_BASE_URL: model.baseURL,
      });
      try {
        await dev.waitForLine("Ctrl-C to stop.");
        const ui = await fetch(`http://localhost:${uiPort}/`);
        expect(ui.status).toBe(200);
        const run = await cli(["run", "cli-greeter", "Hi"], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("Hello from the scripted greeter!");
        const list = await cli(["list", "--agent", "cli-greeter", "--json"], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
        expect(
          list.stdout
            .trimEnd()
            .split("\n")
            .map((line) => JSON.parse(line)),
        ).toMatchObject([{ agent: "cli-greeter", status: "COMPLETED", trips: 1 }]);
      } finally {
        const exit = await dev.stop("SIGINT");
        expect(exit.code).toBe(0);
        expect(exit.stdout).toContain(`Web UI at http://localhost:${uiPort}`);
        expect(exit.stdout).toContain("Stopped.");
      }
    },
    TIMEOUT,
  );
});

describe("help and errors", () => {
  it(
    "the bin launcher lists every command; each command's --help prints its usage and exit codes",
    async () => {
      const top = await cli(["--help"], {}, ["bin/durable-agent.js"]);
      expect(top.code).toBe(0);
      for (const command of Object.keys(COMMANDS)) expect(top.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));
      for (const option of [
        "--address",
        "--namespace",
        "--api-key",
        "--tls",
        "--tls-cert-path",
        "--tls-key-path",
        "--tls-ca-path",
        "--tls-server-name",
        "--version",
      ])
        expect(top.stdout).toContain(`  ${option} `);
      for (const command of ["dev", "worker", "run", "trace", "list", "approve", "reject", "cancel"]) {
        const { code, stdout } = await inProcess([command, "--help"]);
        expect(code).toBe(0);
        expect(stdout).toContain(`Usage: durable-agent ${command}`);
        expect(stdout).toContain("Exit codes:");
      }
    },
    TIMEOUT,
  );

  it.each([
    [["run"], 'Name the agent and the input: durable-agent run <agent> "<input>"'],
    [["run", "coach", "swap", "squats"], 'Expected <agent> and one "<input>", got 3 arguments: quote the input.'],
    [["run", "coach", "  "], "The input is empty"],
    [["run", "coach", "Hi", "--workflow-bundle", "x.js"], "--workflow-bundle is for the worker that --module starts"],
    [
      ["run", "coach", "Hi", "--module", AGENTS],
      'The module test/fixtures/cli-agents.ts has no agent named "coach" (it exports "cli-coach", "cli-greeter", "cli-concierge")',
    ],
    [["run", "coach", "Hi", "--context", "{nope"], '--context must be JSON, e.g. --context \'{"userId":"u1"}\''],
    [["worker"], "Name the module that exports your agents"],
    [["worker", "test/fixtures/nope.ts"], "Cannot load the agents module test/fixtures/nope.ts"],
    [["worker", "test/support/harness.ts"], "The module test/support/harness.ts exports no agent"],
    [["worker", AGENTS, "--workflow-bundle", "nope.js"], "--workflow-bundle nope.js: no such file."],
    [["worker", AGENTS, "--bogus"], "Unknown option '--bogus'"],
    [["dev", AGENTS, "--port", "70000"], '--port must be a port from 1 to 65535 (got "70000")'],
    [["dev", AGENTS, "--port", "7000", "--ui-port", "7000"], "--ui-port must differ from --port (both 7000)"],
    [["trace"], "Name the run: durable-agent trace <workflowId>"],
    [
      ["list", "--status", "sleeping"],
      "--status must be one of running, completed, failed, cancelled, terminated, timed-out, continued-as-new",
    ],
    [["list", "--query", "x", "--agent", "a"], "--query replaces --agent and --status"],
    [["list", "--limit", "0"], '--limit must be a positive integer (got "0")'],
    [
      ["approve", "some-run"],
      "Name the run and the call: durable-agent approve <workflowId> <callId> (got 1 argument(s)).",
    ],
    [["reject", "some-run", "call_1", "--reason", " "], "--reason is empty"],
    [["cancel"], "Name the run: durable-agent cancel <workflowId>"],
    [
      ["dev", AGENTS, "--address", "localhost:7233"],
      "--address does not apply: dev starts a Temporal dev server of its own",
    ],
    [
      ["codec-server", "--tls"],
      "--tls does not apply: codec-server serves the payload codec to the Temporal UI and connects to no Temporal server",
    ],
  ])("%j exits 64 naming what to fix", async (args, message) => {
    const { code, stderr } = await inProcess(args);
    expect(code).toBe(64);
    expect(stderr).toContain(message);
    expect(stderr).toContain(`Usage: durable-agent ${args[0]}`);
  });

  it.each([
    [
      ["--task-queue", "q", "run", "cli-coach", "Hi"],
      "--task-queue goes after the command's name: only the connection options, --help and --version go before it.",
    ],
    [
      ["run", "cli-coach", "Hi", "--address"],
      "--address needs a value, e.g. --address localhost:7233 (or --address=<value>).",
    ],
    [["--namespace", "--tls", "list"], "--namespace needs a value"],
    [["--tls=yes", "list"], '--tls takes no value (got "yes").'],
    [["frobnicate", "--address", "x:1"], 'Unknown command "frobnicate".'],
    [["--address", "x:1"], "Usage: durable-agent [connection options] <command> [options]"],
  ])("%j exits 64 with the top-level usage", async (args, message) => {
    const { code, stderr } = await inProcess(args);
    expect(code).toBe(64);
    expect(stderr).toContain(message);
    expect(stderr).toContain(
      "Connection options (before or after the command; each wins over its environment variable):",
    );
  });

  it(
    "--version prints the package's version, before or after a command; --help before a command prints its usage",
    async () => {
      const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
      expect(await cli(["--version"], {}, ["bin/durable-agent.js"])).toMatchObject({ code: 0, stdout: `${version}\n` });
      expect(await inProcess(["list", "--version"])).toEqual({ code: 0, stdout: version, stderr: "" });
      const help = await inProcess(["--help", "trace"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: durable-agent trace <workflowId> [options]");
    },
    TIMEOUT,
  );

  it("docs/cli.md's exit code table has the codes of EXIT, and every command's usage names no other", () => {
    const doc = readFileSync("docs/cli.md", "utf8");
    const table = doc.slice(doc.indexOf("## Exit codes"));
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(documented).toEqual(Object.values(EXIT));
    for (const [name, command] of Object.entries(COMMANDS)) {
      const text = command.usage.slice(command.usage.indexOf("Exit codes:")).replace(/\s+/g, " ");
      const codes = [...text.matchAll(/(?:^Exit codes:|;) (\d+) /g)].map((m) => Number(m[1]));
      expect(codes.length, `${name}'s usage lists its exit codes`).toBeGreaterThan(1);
      expect(
        codes.filter((code) => !(Object.values(EXIT) as number[]).includes(code)),
        name,
      ).toEqual([]);
    }
  });

  it.concurrent.each([
    ["run", "cli-coach", "Hi"],
    ["trace", "some-id"],
    ["list"],
    ["worker", AGENTS],
    ["approve", "some-id", "call_1"],
    ["cancel", "some-id"],
  ])(
    "%s exits 2 naming the address when Temporal cannot be reached",
    async (...args) => {
      const { code, stderr } = await cli(args, { TEMPORAL_ADDRESS: "127.0.0.1:1" });
      expect(code).toBe(2);
      expect(stderr).toContain("Cannot reach the Temporal server at 127.0.0.1:1");
    },
    TIMEOUT,
  );

  it(
    "trace of an unknown workflow id exits 1 and says how to find runs",
    async () => {
      const { code, stderr } = await cli(["trace", "no-such-run"]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        'No run with workflow id "no-such-run" in namespace "default": check the id (`durable-agent list` shows recent runs) or --namespace.',
      );
    },
    TIMEOUT,
  );

  it(
    "list with a query the server rejects exits 64 and quotes the query",
    async () => {
      const { code, stderr } = await cli(["list", "--query", "NoSuchAttribute = 'x'"]);
      expect(code).toBe(64);
      expect(stderr).toContain(`The server rejected the visibility query "NoSuchAttribute = 'x'"`);
    },
    TIMEOUT,
  );
});
