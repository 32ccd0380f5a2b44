/** Issue 22 on the command line: `durable-agent dataset`, `eval --cases --baseline recorded --html`, and `fork`, as child processes. */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai, parseReport, type RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { createCoach, offeringCoachModel } from "../examples/recorded-runs/coach.js";
import { cli } from "./support/cli-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

const TIMEOUT = 120_000;
const bundle = () => ["--workflow-bundle", inject("workflowBundlePath")];

let harness: Harness;
let model: ScriptedModel;
let recorded: RunResult[];
let dir: string;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(offeringCoachModel);
  dir = mkdtempSync(join(tmpdir(), "recorded-cli-"));
  const coach = createCoach({ actWhenAsked: false, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  recorded = await withWorker(harness, [coach], ({ taskQueue }) =>
    Promise.all(
      ["Swap squats for lunges", "Swap planks for rows"].map((input) =>
        coach.run(input, { client: harness.client, taskQueue }),
      ),
    ),
  );
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

describe("durable-agent dataset / eval --cases / fork", () => {
  it(
    "dataset --out --workflow-id ... writes one case a line; eval --cases replays it with recorded tools and compares with --baseline recorded, with intervals",
    async () => {
      const file = join(dir, "cases.jsonl");
      const made = await cli(["dataset", "--out", file, ...recorded.flatMap((r) => ["--workflow-id", r.workflowId])]);
      expect(made).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(new RegExp(`Wrote 2 case\\(s\\) to ${file} in \\d+\\.\\ds`)),
      });
      expect(
        readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).name),
      ).toEqual(recorded.map((r) => r.workflowId));

      const json = join(dir, "report.json");
      const html = join(dir, "report.html");
      const replayed = await cli(
        [
          "eval",
          "examples/recorded-runs/coach.eval.ts",
          "--cases",
          file,
          "--unmatched-tool-calls",
          "execute",
          "--baseline",
          "recorded",
          "--json",
          json,
          "--html",
          html,
          ...bundle(),
        ],
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "test" },
      );
      expect(replayed.code, replayed.stderr).toBe(0);
      // Two cases of two flipped from fail to pass, but 0/2 → 2/2 is within noise: no case is called a fix.
      expect(replayed.stdout).toContain(
        "Compared with the baseline: 0 regression(s), 0 fix(es), 2 changed within noise, 0 added, 0 removed",
      );
      for (const run of recorded)
        expect(replayed.stdout).toContain(`changed within noise ${run.workflowId}: fail → pass (requiredToolCalled)`);
      expect(replayed.stdout).toMatch(
        /requiredToolCalled: 0\/2 \(0%, 95% CI 0%–66%\) → 2\/2 \(100%, 95% CI 34%–100%\): within noise \(two-sided Fisher exact p = 0\.333/,
      );
      const report = parseReport(readFileSync(json, "utf8"));
      expect(report.runs.map((r) => r.replay)).toEqual([
        { matched: 1, unmatched: 1 },
        { matched: 1, unmatched: 1 },
      ]);
      expect(report.runs[0]!.toolCalls.map((c) => [c.name, c.replayed ?? false])).toEqual([
        ["get_plan", true],
        ["update_plan", false],
      ]);
      expect(readFileSync(html, "utf8")).toMatch(/^<!doctype html>[\s\S]*Against the baseline/);
    },
    TIMEOUT,
  );

  it(
    "dataset --query --agent --limit: the server lists the query's runs of that agent only, and the file holds --limit cases",
    async () => {
      const suffix = randomUUID().slice(0, 8);
      const mine = createCoach({
        actWhenAsked: false,
        model: ai.openai("gpt-test", { baseURL: model.baseURL }),
        name: `cli-dataset-${suffix}`,
      });
      const other = createCoach({
        actWhenAsked: false,
        model: ai.openai("gpt-test", { baseURL: model.baseURL }),
        name: `cli-dataset-other-${suffix}`,
      });
      const inputs = ["Swap squats for lunges", "Swap planks for rows", "Change squats to rows"];
      // Mine first, the other agent's last: listed newest first, the other agent's runs would fill a limit of 2 without --agent.
      const runAll = (agent: typeof mine, texts: string[]) =>
        withWorker(
          harness,
          [agent],
          async ({ taskQueue }) => {
            const runs: RunResult[] = [];
            for (const input of texts) runs.push(await agent.run(input, { client: harness.client, taskQueue }));
            return runs;
          },
          { searchAttributes: true },
        );
      const mineRuns = await runAll(mine, inputs);
      await runAll(other, inputs.slice(0, 2));
      const query = `DurableAgentName IN ("${mine.name}", "${other.name}")`;
      const completed = `(${query}) AND ExecutionStatus = "Completed"`; // listed as started before it is listed as completed
      for (let i = 0; i < 2400 && (await harness.client.workflow.count(completed)).count < 5; i++)
        await new Promise((resolve) => setTimeout(resolve, 50)); // visibility catches up
      expect((await harness.client.workflow.count(completed)).count).toBe(5);

      const file = join(dir, "by-query.jsonl");
      const made = await cli(["dataset", "--out", file, "--query", query, "--agent", mine.name, "--limit", "2"]);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(`Wrote 2 case(s) to ${file}`);
      const cases = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { name: string; recorded: { agent: string } });
      expect(cases).toHaveLength(2);
      expect(cases.map((c) => c.recorded.agent)).toEqual([mine.name, mine.name]);
      expect(mineRuns.map((r) => r.workflowId)).toEqual(expect.arrayContaining(cases.map((c) => c.name)));
      expect(new Set(cases.map((c) => c.name)).size).toBe(2);
    },
    TIMEOUT,
  );

  it("dataset without --out, or without runs to read, exits 64 with the usage", async () => {
    expect(await cli(["dataset", "--query", "x = 1"])).toMatchObject({
      code: 64,
      stderr: expect.stringContaining("--out <file>"),
    });
    expect(await cli(["dataset", "--out", join(dir, "x.jsonl")])).toMatchObject({
      code: 64,
      stderr: expect.stringContaining("--workflow-id <id> (repeatable) or --query"),
    });
  });

  it(
    "fork <workflowId> --trip 2 prints the fork live (the recorded trip is not made again) and its trace",
    async () => {
      const forked = await cli(
        [
          "fork",
          recorded[0]!.workflowId,
          "--trip",
          "2",
          "--module",
          "examples/recorded-runs/coach.eval.ts",
          ...bundle(),
        ],
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "test" },
      );
      expect(forked.code, forked.stderr).toBe(0);
      expect(forked.stdout).toMatch(new RegExp(`^Fork coach-fork-\\S+ of run ${recorded[0]!.workflowId} at trip 2`));
      expect(forked.stdout).toContain(`⑂ forked from ${recorded[0]!.workflowId} at trip 2 (agent coach)`);
      expect(forked.stdout).not.toContain("── trip 1 ──");
      expect(forked.stdout).toContain("── trip 2 ──");
      expect(forked.stdout).toContain("re-prompt (act-when-asked)");
      expect(forked.stdout).toMatch(/Trace:\n {2}trip 1 {3}model asked for get_plan/);
      const noTrip = await cli(["fork", recorded[0]!.workflowId, "--trip", "9"]);
      expect(noTrip).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("it made 2 trip(s), so there is no trip 9 to fork at"),
      });
    },
    TIMEOUT,
  );
});
