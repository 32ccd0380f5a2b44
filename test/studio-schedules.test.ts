/**
 * Issue 42, the studio's schedules: an `every: "2s"` agent schedule on the suite's dev server with a
 * real worker; `GET /api/schedules` lists it with its next runs, `GET /api/runs?schedule=<id>`
 * gives its runs only (Temporal's `TemporalScheduledById`), and the page (built by Vite, in real
 * Chromium) shows the schedule and, through its "its runs" link, the runs list filtered to it.
 * Screenshots go to test-artifacts/studio/.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "@temporalio/worker";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ai, type AgentSchedule } from "../src/index.js";
import type { RunsResponse, SchedulesResponse, StudioServer } from "../src/studio/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { launchChromium } from "./support/browser.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";

const ARTIFACTS = new URL("../test-artifacts/studio/", import.meta.url).pathname;
let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let workerDone: Promise<void>;
let studio: StudioServer;
let browser: Browser;
let page: Page;
let schedule: AgentSchedule;
let other: string;

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });
const json = async <T>(path: string): Promise<T> =>
  (await fetch(`http://127.0.0.1:${studio.port}${path}`)).json() as Promise<T>;

beforeAll(async () => {
  const assetsDir = mkdtempSync(join(tmpdir(), "studio-page-"));
  mkdirSync(ARTIFACTS, { recursive: true });
  [harness, model, browser] = await Promise.all([
    connectHarness(),
    startScriptedModel(() => "Summary: 3 tickets yesterday."),
    launchChromium(),
    build({ configFile: "src/studio/page/vite.config.ts", build: { outDir: assetsDir }, logLevel: "warn" }),
  ]);
  const summary = ai.agent({ name: "ticket-summary", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  const queue = taskQueue();
  worker = await testWorker(harness, [summary], { taskQueue: queue, searchAttributes: true });
  workerDone = worker.run();
  studio = await ai.studio({ client: harness.client, agents: [summary], port: 0, taskQueue: queue, assetsDir });
  page = await (await browser.newContext({ viewport: { width: 1200, height: 700 } })).newPage();
  other = (await summary.start("Not scheduled", { client: harness.client, taskQueue: queue })).workflowId;
  schedule = await summary.schedule(`daily-${randomUUID().slice(0, 8)}`, {
    client: harness.client,
    taskQueue: queue,
    every: "2s",
    input: "Summarise yesterday's tickets",
    note: "weekday summaries",
  });
  await vi.waitFor(async () => expect((await schedule.describe()).runsStarted).toBeGreaterThanOrEqual(2), {
    timeout: 60_000,
    interval: 100,
  });
}, 300_000);

afterAll(async () => {
  await schedule?.delete();
  await browser?.close();
  await studio?.close();
  worker?.shutdown();
  await workerDone;
  await model?.close();
  await harness?.close();
});

describe("the studio's schedules", () => {
  it("GET /api/schedules lists the schedule with its agent, note and next runs", async () => {
    await poll(async () =>
      (await json<SchedulesResponse>("/api/schedules")).schedules.find((s) => s.id === schedule.id),
    ).toMatchObject({
      agent: "ticket-summary",
      paused: false,
      note: "weekday summaries",
      nextRuns: expect.arrayContaining([expect.stringMatching(/^20\d\d-/)]),
    });
  });

  it("GET /api/runs?schedule=<id> gives the schedule's runs and no other", async () => {
    const path = `/api/runs?schedule=${encodeURIComponent(schedule.id)}`;
    await poll(async () => (await json<RunsResponse>(path)).runs.length).toBeGreaterThanOrEqual(2);
    const { runs } = await json<RunsResponse>(path);
    expect(runs.every((run) => run.workflowId.startsWith(`ticket-summary-${schedule.id}-`))).toBe(true);
    expect(runs.map((run) => run.workflowId)).not.toContain(other);
  });

  it("the page shows the schedule with its next runs, and its link opens the runs list filtered to its runs", async () => {
    await page.goto(`${studio.url}#/schedules`);
    const row = page.locator(`[data-testid="schedule"][data-id="${schedule.id}"]`);
    await poll(() => row.count()).toBe(1);
    await poll(() => row.getByTestId("schedule-next").innerText()).toMatch(/\d/);
    expect(await row.getByTestId("schedule-state").innerText()).toContain("active");
    await page.screenshot({ path: join(ARTIFACTS, "schedules.png") });

    await row.getByTestId("schedule-runs").click();
    await poll(() => page.getByTestId("filter-schedule").inputValue()).toBe(schedule.id);
    const rows = page.getByTestId("run-row");
    await poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    const ids = await rows.evaluateAll((elements) => elements.map((e) => e.getAttribute("data-workflow-id")));
    expect(ids.every((id) => id!.startsWith(`ticket-summary-${schedule.id}-`))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "schedule-runs.png") });
  });
});
