/** Issue 4, item 6: `durable-agent eval <module>` as a child process against the suite's Temporal server. */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai, parseReport } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { createCoach } from "../examples/evals/coach-agent.js";
import { cases, scorers } from "../examples/evals/coach-cases.js";
import { misbehavingCoachModel } from "../examples/evals/scripted-coach-model.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

const WITHOUT_CONTRACT = "examples/evals/coach-without-contract.eval.ts";
const WITH_CONTRACT = "examples/evals/coach.eval.ts";
const APPROVAL_EVAL = "test/fixtures/approval-eval.ts";
const CLI_TIMEOUT = 120_000;

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source as the issue says: node --import tsx --conditions=durable-agent-source src/cli/index.ts ... */
function cli(
  args: string[],
  env: Record<string, string> = {},
  entry = ["--import", "tsx", "--conditions=durable-agent-source", "src/cli/index.ts"],
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const base = { ...process.env };
    delete base.OPENAI_API_KEY;
    delete base.OPENAI_BASE_URL;
    delete base.TEMPORAL_TASK_QUEUE;
    const child = spawn(process.execPath, [...entry, ...args], {
      env: { ...base, TEMPORAL_ADDRESS: inject("temporalAddress"), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The suite's prebuilt workflow bundle, so most CLI runs skip bundling (the first one bundles for real). */
const prebuilt = () => ["--workflow-bundle", inject("workflowBundlePath")];
const progressLines = (stdout: string) => stdout.split("\n").filter((line) => /^\[\d+\/\d+\] /.test(line));

let harness: Harness;
let model: ScriptedModel;
let unauthorized: ScriptedModel;
let dir: string;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(misbehavingCoachModel);
  unauthorized = await startScriptedModel(() => ({
    status: 401,
    body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } },
  }));
  dir = mkdtempSync(join(tmpdir(), "durable-agent-eval-cli-"));
});
afterAll(async () => {
  await model.close();
  await unauthorized.close();
  await harness.close();
});

/** A JSON report of the example eval, made in this process (with or without the contract), for --baseline. */
async function baselineFile(contract: boolean): Promise<string> {
  const coach = createCoach({ contract, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  const report = await withWorker(harness, [coach], ({ taskQueue }) =>
    coach.eval({ cases, scorers, client: harness.client, taskQueue }),
  );
  const file = join(dir, `baseline-${contract ? "on" : "off"}.json`);
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe("durable-agent eval <module>", () => {
  it(
    "without the contract: prints a progress line per finished case, writes a schema-valid JSON report and a JUnit report, and exits 1 below the gate",
    async () => {
      const json = join(dir, "without.json");
      const junit = join(dir, "junit", "without.xml");
      const { code, stdout, stderr } = await cli(["eval", WITHOUT_CONTRACT, "--json", json, "--junit", junit], {
        OPENAI_BASE_URL: model.baseURL,
      });
      expect({ code, stderr }).toEqual({ code: 1, stderr: "" });
      expect(stdout).toMatch(/Starting a worker for agent "coach" on task queue durable-agent-eval-/);
      const lines = progressLines(stdout);
      expect(lines.map((line) => line.slice(0, 5))).toEqual(["[1/4]", "[2/4]", "[3/4]", "[4/4]"]);
      expect(lines.map((line) => line.replace(/ \(\d+\.\ds\)$/, "").slice(6)).sort()).toEqual([
        "FAIL  claims-without-tool-call",
        "FAIL  offers-instead-of-acting",
        "pass  acts-at-once",
        "pass  question",
      ]);
      expect(stdout).toMatch(/^offers-instead-of-acting\s+1\s+FAIL\s+pass\s+pass$/m);
      expect(stdout).toMatch(/^question\s+1\s+n\/a\s+pass\s+pass$/m);
      expect(stdout).toContain(
        "x claims-without-tool-call (trial 1) changeClaimedWithoutToolCall: change claimed without a tool call",
      );
      expect(stdout).toContain("FAILED (exit 1): pass rate 72.7% (8 of 11) is below 100%");

      const report = parseReport(readFileSync(json, "utf8"));
      expect(report).toMatchObject({
        schemaVersion: 1,
        agent: "coach",
        trials: 1,
        totals: { failed: 3, passed: 8, notApplicable: 1, infrastructureErrors: 0 },
      });

      const xml = readFileSync(junit, "utf8");
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
      expect(parsed.testsuites).toMatchObject({ tests: "12", failures: "3", errors: "0", skipped: "1" });
    },
    CLI_TIMEOUT,
  );

  it(
    "with the contract, --trials 2 and a --baseline: exits 0, shows pass^2, and lists the fixed cases",
    async () => {
      const baseline = await baselineFile(false);
      const { code, stdout } = await cli(
        ["eval", WITH_CONTRACT, "--trials", "2", "--baseline", baseline, ...prebuilt()],
        { OPENAI_BASE_URL: model.baseURL },
      );
      expect(code).toBe(0);
      expect(progressLines(stdout)).toHaveLength(4);
      expect(stdout).toMatch(/^\[\d\/4\] pass {2}offers-instead-of-acting \[pass, pass\]/m);
      expect(stdout).toMatch(/^case\s+pass@1\s+pass\^2\s+flaky$/m);
      expect(stdout).toMatch(/^offers-instead-of-acting\s+100%\s+yes$/m);
      // Two cases of two trials each: the flips are real, but within noise (no scorer changed significantly).
      expect(stdout).toContain(
        "Compared with the baseline: 0 regression(s), 0 fix(es), 2 changed within noise, 0 added, 0 removed",
      );
      expect(stdout).toContain("changed within noise offers-instead-of-acting: fail → pass (requiredToolCalled)");
      expect(stdout).toContain(
        "changed within noise claims-without-tool-call: fail → pass (requiredToolCalled, changeClaimedWithoutToolCall)",
      );
      expect(stdout).toContain("PASSED: pass rate 100% (gate 100%)");
    },
    CLI_TIMEOUT,
  );

  it(
    "--min-pass-rate 0.7 accepts a 72.7% pass rate; --fail-on-regression still fails on the cases that passed in the baseline",
    async () => {
      const baseline = await baselineFile(true);
      const { code, stdout } = await cli(
        [
          "eval",
          WITHOUT_CONTRACT,
          "--min-pass-rate",
          "0.7",
          "--baseline",
          baseline,
          "--fail-on-regression",
          ...prebuilt(),
        ],
        { OPENAI_BASE_URL: model.baseURL },
      );
      expect(code).toBe(1);
      expect(stdout).toContain("changed within noise offers-instead-of-acting: pass → fail (requiredToolCalled)");
      expect(stdout).toContain(
        "changed within noise claims-without-tool-call: pass → fail (requiredToolCalled, changeClaimedWithoutToolCall)",
      );
      // --fail-on-regression is strict: any case that passed in the baseline and fails now fails the gate, noise or not.
      expect(stdout).toContain("FAILED (exit 1): 2 case(s) passed in the baseline and fail now\n");
    },
    CLI_TIMEOUT,
  );

  it(
    "exits 2 when the model API is down: every run is an infrastructure error, counted apart from failures",
    async () => {
      const json = join(dir, "infra.json");
      const { code, stdout } = await cli(["eval", WITH_CONTRACT, "--json", json, ...prebuilt()], {
        OPENAI_BASE_URL: unauthorized.baseURL,
      });
      expect(code).toBe(2);
      const lines = progressLines(stdout);
      expect(lines).toHaveLength(4);
      expect(lines.every((line) => / INFRA /.test(line))).toBe(true);
      expect(stdout).toMatch(
        /Infrastructure errors \(4\):\n {2}! \S+ \(trial 1, durable-agent-eval-coach-\S+\): ModelApiError: /,
      );
      expect(stdout).toContain(
        "FAILED (exit 2): 4 run(s) did not complete (infrastructure errors); no scorer judged any case",
      );
      const report = parseReport(readFileSync(json, "utf8"));
      expect(report.totals).toMatchObject({ infrastructureErrors: 4, failed: 0, passed: 0, passRate: null });
    },
    CLI_TIMEOUT,
  );

  it(
    "exits 2 when Temporal cannot be reached, naming the address",
    async () => {
      const { code, stderr } = await cli(["eval", WITH_CONTRACT], {
        TEMPORAL_ADDRESS: "127.0.0.1:1",
        OPENAI_BASE_URL: model.baseURL,
      });
      expect(code).toBe(2);
      expect(stderr).toContain("Cannot reach the Temporal server at 127.0.0.1:1");
    },
    CLI_TIMEOUT,
  );

  it(
    "--task-queue: runs on the workers of that queue and starts none of its own",
    async () => {
      const coach = createCoach({ contract: true, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
      const queue = taskQueue();
      // The CLI's own model setting is a server that refuses every call: only our worker can pass.
      const { code, stdout } = await withWorker(
        harness,
        [coach],
        () => cli(["eval", WITH_CONTRACT, "--task-queue", queue], { OPENAI_BASE_URL: unauthorized.baseURL }),
        { taskQueue: queue },
      );
      expect(code).toBe(0);
      expect(stdout).toContain(`on task queue ${queue} (your workers)`);
      expect(stdout).not.toContain("Starting a worker");
    },
    CLI_TIMEOUT,
  );

  it(
    '--approvals approve|reject decides every call that waits for approval, recorded by "eval": the runs do not wait for the approval timeout',
    async () => {
      const swapper = await startScriptedModel(({ body }) =>
        body.messages.at(-1)?.role === "tool"
          ? "Done."
          : { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      );
      const [approved, rejected] = await Promise.all(
        (["approve", "reject"] as const).map(async (policy) => {
          const json = join(dir, `approvals-${policy}.json`);
          const exit = await cli(["eval", APPROVAL_EVAL, "--approvals", policy, "--json", json, ...prebuilt()], {
            OPENAI_BASE_URL: swapper.baseURL,
          });
          return { ...exit, report: exit.code === 64 ? undefined : parseReport(readFileSync(json, "utf8")) };
        }),
      );
      await swapper.close();
      expect({ code: approved!.code, stderr: approved!.stderr }).toEqual({ code: 0, stderr: "" });
      expect(approved!.report!.runs[0]).toMatchObject({
        toolCalls: [{ name: "update_plan", status: "ok" }],
        approvals: [{ outcome: "approved", by: "eval" }],
      });
      expect(rejected!.code).toBe(1); // requiredToolCalled fails: the call was refused
      expect(rejected!.report!.runs[0]).toMatchObject({
        toolCalls: [{ name: "update_plan", status: "refused" }],
        approvals: [{ outcome: "rejected", by: "eval" }],
      });
    },
    CLI_TIMEOUT,
  );

  describe.concurrent("usage errors exit 64 with the usage", () => {
    it.each([
      [["eval"], "Name the eval module"],
      [["eval", WITH_CONTRACT, "--min-pass-rate", "1.5"], '--min-pass-rate must be a number from 0 to 1 (got "1.5")'],
      [["eval", WITH_CONTRACT, "--trials", "0"], '--trials must be a positive integer (got "0")'],
      [["eval", WITH_CONTRACT, "--bogus"], "Unknown option '--bogus'"],
      [["eval", WITH_CONTRACT, "--approvals", "maybe"], '--approvals must be approve or reject (got "maybe")'],
      [["eval", WITH_CONTRACT, "--workflow-bundle", "nope.js"], "--workflow-bundle nope.js: no such file."],
      [["eval", "examples/evals/coach-cases.ts"], "must export `agent` (an ai.agent(...))"],
      [["eval", "examples/evals/nope.eval.ts"], "Cannot load the eval module examples/evals/nope.eval.ts"],
      [
        ["eval", WITH_CONTRACT, "--baseline", "package.json"],
        "--baseline package.json: Unsupported eval report schemaVersion undefined",
      ],
      [["frobnicate"], 'Unknown command "frobnicate"'],
    ])(
      "%j",
      async (args, message) => {
        const { code, stderr } = await cli(args, { TEMPORAL_ADDRESS: "127.0.0.1:1" });
        expect(code).toBe(64);
        expect(stderr).toContain(message);
        expect(stderr).toContain("Usage: durable-agent");
      },
      CLI_TIMEOUT,
    );
  });

  it(
    "the package's bin launcher runs the same CLI: help exits 0, a bad command 64",
    async () => {
      const help = await cli(["eval", "--help"], {}, ["bin/durable-agent.js"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: durable-agent eval <module> [options]");
      const bad = await cli(["nope"], {}, ["bin/durable-agent.js"]);
      expect(bad.code).toBe(64);
      expect(JSON.parse(readFileSync("package.json", "utf8")).bin).toEqual({ "durable-agent": "bin/durable-agent.js" });
    },
    CLI_TIMEOUT,
  );
});
