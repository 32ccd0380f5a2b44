/**
 * Issue 22, items 4 and 5: the example's whole loop (examples/recorded-runs) against the suite's
 * server, and its HTML report opened in the suite's Chromium (test/support/browser.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { offeringCoachModel } from "../examples/recorded-runs/coach.js";
import { recordedRunsLoop, type LoopResult } from "../examples/recorded-runs/recorded-loop.js";
import { launchChromium } from "./support/browser.js";
import { connectHarness, type Harness } from "./support/harness.js";

const ARTIFACTS = new URL("../test-artifacts/", import.meta.url);

let harness: Harness;
let model: ScriptedModel;
let loop: LoopResult;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(offeringCoachModel);
  loop = await recordedRunsLoop({
    client: harness.client,
    connection: harness.connection,
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    workflowBundle: { codePath: inject("workflowBundlePath") },
    name: `coach-${randomUUID().slice(0, 8)}`,
  });
}, 240_000);
afterAll(async () => {
  await model.close();
  await harness.close();
});

describe("the recorded-runs example: offers → dataset → actWhenAsked → replay → gate", () => {
  it("the dataset holds the runs where requiredToolCalled failed: the six offers and the refused change", () => {
    expect(loop.dataset).toBe(7);
    expect(loop.baseline.scorers[0]).toMatchObject({ scorer: "requiredToolCalled", passed: 0, failed: 7 });
  });

  it("the replay fixes the six offers, with no regression, significantly (two-sided Fisher exact p < 0.05); the gate passes", () => {
    expect(loop.replay.scorers[0]).toMatchObject({ passed: 6, failed: 1 });
    expect(loop.comparison.regressions).toEqual([]);
    expect(loop.comparison.fixes).toHaveLength(6);
    expect(loop.comparison.scorers[0]).toMatchObject({
      scorer: "requiredToolCalled",
      verdict: "better",
      significant: true,
      baseline: { passed: 0, total: 7 },
      current: { passed: 6, total: 7 },
    });
    expect(loop.comparison.scorers[0]!.pValue!).toBeLessThan(0.05);
    expect(loop.gate).toEqual({ passed: true, problems: [] });
  });

  it("the replay answers the recorded lookups from the recording: it executes only the calls the recordings never reached", () => {
    const matched = loop.replay.runs.reduce((sum, run) => sum + run.replay!.matched, 0);
    const unmatched = loop.replay.runs.reduce((sum, run) => sum + run.replay!.unmatched, 0);
    expect(matched).toBe(8); // 7 get_plan lookups, and the refused update_plan of the moonwalks case
    expect(loop.cost.replay.toolExecutions).toBe(unmatched); // executed: only the unmatched
    expect(loop.cost.live.toolExecutions).toBe(loop.live.runs.reduce((sum, run) => sum + run.toolCalls.length, 0));
    expect(loop.cost.replay.toolExecutions).toBeLessThan(loop.cost.live.toolExecutions);
    console.log(
      `replay: ${loop.cost.replay.toolExecutions} tool executions, ${loop.cost.replay.wallMs} ms; live: ${loop.cost.live.toolExecutions} tool executions, ${loop.cost.live.wallMs} ms (noisy: shared machine)`,
    );
  });

  it("report.toHtml() renders in Chromium as one page with no network: pass rates, the changes against the baseline, the failing case's tool calls and reason", async () => {
    const html = loop.replay.toHtml({ baseline: loop.baseline });
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3)/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1100 } });
      const requests: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      await page.setContent(html, { waitUntil: "load" });
      expect(await page.title()).toMatch(/^Eval report: coach-/);
      expect(await page.locator("table.scorers").innerText()).toMatch(
        /requiredToolCalled\s+6\s+1[\s\S]*6\/7 \(86%, 95% CI 49%–97%\)/,
      );
      expect(await page.locator(".scorer-changes").innerText()).toMatch(
        /0\/7 .* → 6\/7 .*: better \(two-sided Fisher exact p = 0\.005/,
      );
      const failure = page.locator(".failure").first();
      await expect(failure.innerText()).resolves.toMatch(/required tool not called/);
      const calls = await failure.locator("table.tool-calls").innerText();
      expect(calls).toMatch(/get_plan\(\{"user":"u-1"\}\)\s+ok/);
      expect(calls).toMatch(
        /update_plan\(\{"from":"squats","to":"moonwalks"\}\)\s+refused\s+moonwalks is not in the library/,
      );
      expect(await failure.locator(".msg.reprompt").count()).toBeGreaterThan(0);
      expect(requests.filter((url) => !url.startsWith("about:") && !url.startsWith("data:"))).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = await page.screenshot({ fullPage: true });
      writeFileSync(new URL("eval-report.png", ARTIFACTS), shot);
      writeFileSync(new URL("eval-report.html", ARTIFACTS), html);
    } finally {
      await browser.close();
    }
  });
});
