/**
 * Issue 22 on the command line: `durable-agent dataset`, `eval --cases --baseline recorded --html`, and `fork`, as child
 * processes; issue 41's edit flags of `fork` (`--instructions-file`, `--model`, `--model-setting`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai, parseReport, type RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { createCoach, offeringCoachModel } from "../examples/recorded-runs/coach.js";
import { readRecordedRun } from "../src/datasets/read-run.js";
import type { AgentRunArgs } from "../src/workflows/definitions.js";
import { cli, runMain } from "./support/cli-helpers.js";
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

  it(
    "fork --trip 2 --instructions-file --model --model-setting: the fork's model calls get them, it prints them, its input records them",
    async () => {
      const instructions = join(dir, "terse.txt");
      writeFileSync(instructions, "You are a terse coach.\nAnswer in one line.");
      const before = model.requests.length;
      const forked = await cli(
        [
          "fork",
          recorded[1]!.workflowId,
          "--trip",
          "2",
          "--instructions-file",
          instructions,
          "--model",
          "gpt-edited",
          "--model-setting",
          "temperature=0.3",
          "--model-setting",
          "seed=7",
          "--model-setting",
          'stop=["THE END"]',
          "--module",
          "examples/recorded-runs/coach.eval.ts",
          ...bundle(),
        ],
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "test" },
      );
      expect(forked.code, forked.stderr).toBe(0);
      const forkId = /^Fork (\S+) of run /.exec(forked.stdout)![1]!;
      expect(forked.stdout.split("\n")[1]).toBe(
        'Changed for the fork: instructions "You are a terse coach."; model gpt-edited; ' +
          'model settings {"temperature":0.3,"seed":7,"stop":["THE END"]}',
      );
      // Trip 2 (the re-prompted act) and trip 3 (the answer), each with the edits; the recorded trip 1 is not made again.
      const sent = model.requests.slice(before).map((r) => r.body);
      expect(sent.map((b) => [b.model, b.temperature, b.seed, b.stop, b.messages[0]])).toEqual(
        sent.map(() => [
          "gpt-edited",
          0.3,
          7,
          ["THE END"],
          { role: "system", content: "You are a terse coach.\nAnswer in one line." },
        ]),
      );
      expect(sent.length).toBeGreaterThanOrEqual(2);
      const fork = await readRecordedRun(harness.client, forkId);
      expect((fork.args as AgentRunArgs).fork?.changes).toEqual({
        instructions: "You are a terse coach.\nAnswer in one line.",
        model: "gpt-edited",
        modelSettings: { temperature: 0.3, seed: 7, stop: ["THE END"] },
      });
    },
    TIMEOUT,
  );

  it("fork's edit flags refuse bad input with a sentence that names the fix and exit 64, before connecting; never a stack", async () => {
    const fork = ["fork", recorded[0]!.workflowId, "--trip", "2"];
    // As a user runs it: child processes (an unknown key gets the library's "did you mean")
    const [typo, noFile] = await Promise.all([
      cli([...fork, "--model-setting", "temprature=0.3"]),
      cli([...fork, "--instructions-file", join(dir, "missing.txt")]),
    ]);
    expect(typo.stderr.split("\n")[0]).toBe("--model-setting has no option `temprature`; did you mean `temperature`?");
    expect(noFile.stderr.split("\n")[0]).toBe(
      `--instructions-file ${join(dir, "missing.txt")} cannot be read (no such file).`,
    );
    for (const exit of [typo, noFile]) {
      expect(exit.code).toBe(64);
      expect(exit.stderr).toContain("Usage: durable-agent fork <workflowId> --trip <n>");
      expect(exit.stderr).not.toMatch(/\n\s+at /); // no stack
    }
    // The rest in this process (the same main()); the address is one nothing listens on: nothing connects before the check
    const bad: Array<[string[], string]> = [
      [
        ["--model-setting", "maxOutputTokens=100"],
        "--model-setting has no option `maxOutputTokens`; did you mean `maxTokens`? (the AI SDK's `maxOutputTokens` is `maxTokens` here)",
      ],
      [
        ["--model-setting", "temperature"],
        '--model-setting takes key=value, e.g. --model-setting temperature=0.2 (got "temperature").',
      ],
      [["--model-setting", "=1"], '--model-setting takes key=value, e.g. --model-setting temperature=0.2 (got "=1").'],
      [["--model-setting", "temperature=hot"], '--model-setting temperature must be a number from 0 to 2 (got "hot")'],
      [["--model-setting", "temperature=3"], "--model-setting temperature must be a number from 0 to 2 (got 3)"],
      [
        ["--model-setting", "seed=1", "--model-setting", "seed=2"],
        "--model-setting seed is given twice: give it once.",
      ],
      [["--model-setting", "stop=[oops"], "--model-setting stop=[oops is not valid JSON"],
      [["--instructions", " "], "--instructions is empty: give the fork's instructions (its system prompt)."],
      [
        ["--instructions", "a", "--instructions-file", "b"],
        "Give the instructions once: --instructions <text> or --instructions-file <path>, not both.",
      ],
      [["--model", ""], "--model is empty: give a model id, e.g. --model gpt-4o."],
    ];
    for (const [flags, message] of bad) {
      const exit = await runMain([...fork, ...flags, "--address", "127.0.0.1:1"]);
      expect(exit.code, flags.join(" ")).toBe(64);
      expect(exit.stderr.split("\n")[0]).toContain(message);
    }
  });
});
