/**
 * Issue 31, item 6: the compare-models example (examples/compare-models) against the suite's
 * server and two scripted providers: yesterday's runs on `ai.openai()` (Chat Completions), a fork
 * and a playback of them on `@ai-sdk/anthropic` (Anthropic Messages), compared with the recordings.
 */
import { randomUUID } from "node:crypto";
import { createAnthropic } from "@ai-sdk/anthropic";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai } from "../src/index.js";
import {
  startScriptedAnthropic,
  startScriptedModel,
  type ScriptedAnthropic,
  type ScriptedModel,
} from "../src/testing/index.js";
import { claudeAnswers, yesterdaysOpenAI } from "../examples/compare-models/coach.js";
import { compareModels, printout, TRAFFIC, type CompareResult } from "../examples/compare-models/compare-models.js";
import { connectHarness, type Harness } from "./support/harness.js";

let harness: Harness;
let openai: ScriptedModel;
let anthropic: ScriptedAnthropic;
let result: CompareResult;
let output: string;
beforeAll(async () => {
  harness = await connectHarness();
  openai = await startScriptedModel(yesterdaysOpenAI);
  anthropic = await startScriptedAnthropic(claudeAnswers);
  result = await compareModels({
    client: harness.client,
    connection: harness.connection,
    recordedModel: ai.openai("gpt-4o-mini", { baseURL: openai.baseURL }),
    candidateModel: ai.model(
      createAnthropic({ baseURL: anthropic.baseURL, apiKey: "sk-ant-scripted" })("claude-sonnet-4-5"),
    ),
    workflowBundle: { codePath: inject("workflowBundlePath") },
    name: `coach-${randomUUID().slice(0, 8)}`,
    scripted: true,
  });
  output = printout(result);
  console.log(output);
}, 240_000);
afterAll(async () => {
  await anthropic?.close();
  await openai?.close();
  await harness.close();
});

describe("the compare-models example: OpenAI runs → dataset → fork and playback on Claude → comparison", () => {
  it("the dataset holds every recorded OpenAI run, three trips each for a swap", () => {
    expect(result.cases).toBe(TRAFFIC.length);
    expect(openai.requests.length).toBe(3 * 11 + 2);
  });

  it("the fork goes on from the recorded refusal on Claude: one Anthropic request holding the OpenAI run's tool calls, no tool executed", () => {
    const { from, result: forked, toolExecutions } = result.fork;
    expect(from.reply).toBe("Done: squats are now moonwalks.");
    expect(forked.forkedFrom).toMatchObject({ workflowId: from.workflowId, atTrip: 3 });
    expect(forked.reply).toBe("I could not put moonwalks in: it is not in the library. Your plan still has squats.");
    expect(forked.trips).toBe(3);
    expect(toolExecutions).toBe(0);
    const forkRequest = anthropic.requests.find(
      (request) => JSON.stringify(request.body.messages).includes("moonwalks") && request.body.messages.length > 1,
    )!;
    const blocks = forkRequest.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(blocks.filter((b) => b.type === "tool_use").map((b) => [b.name, b.input])).toEqual([
      ["get_plan", { user: "u-1" }],
      ["update_plan", { from: "squats", to: "moonwalks" }],
    ]);
    expect(JSON.stringify(blocks.filter((b) => b.type === "tool_result"))).toContain("moonwalks is not in the library");
  });

  it("the playback on Claude answers every tool call from the recordings: none executes", () => {
    const matched = result.playback.runs.reduce((sum, run) => sum + run.replay!.matched, 0);
    const unmatched = result.playback.runs.reduce((sum, run) => sum + run.replay!.unmatched, 0);
    expect(matched).toBe(2 * 11 + 1); // get_plan and update_plan of each swap, get_plan of the question
    expect(unmatched).toBe(0);
    expect(result.playbackToolExecutions).toBe(0);
    expect(result.playback.runs.every((run) => run.toolCalls.every((call) => call.replayed === true))).toBe(true);
  });

  it("the comparison says Claude does better on false claims, significantly, with the intervals; the seven refused swaps are its fixes", () => {
    const claims = result.comparison.scorers.find((s) => s.scorer === "changeClaimedWithoutToolCall")!;
    expect(claims).toMatchObject({
      verdict: "better",
      significant: true,
      baseline: { passed: 5, total: 12 },
      current: { passed: 12, total: 12 },
    });
    expect(claims.pValue!).toBeLessThan(0.05);
    expect(result.comparison.regressions).toEqual([]);
    expect(result.comparison.fixes.map((fix) => fix.withinNoise)).toEqual(Array(7).fill(false));
    expect(output).toContain(
      "Compared with the baseline: 0 regression(s), 7 fix(es), 0 changed within noise, 0 added, 0 removed",
    );
    expect(output).toMatch(
      /changeClaimedWithoutToolCall: 5\/12 \(42%, 95% CI \d+%–\d+%\) → 12\/12 \(100%, 95% CI \d+%–100%\): better/,
    );
    expect(output).toContain(
      "(scripted) Claude does better on changeClaimedWithoutToolCall, significantly, and no worse elsewhere",
    );
    expect(output.split("\n")[0]).toMatch(/^Both models are SCRIPTED/); // two scripted servers are not a finding about the models
    expect(output).toContain("recorded scripted OpenAI run(s)");
  });
});
