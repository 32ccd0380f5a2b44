/**
 * Issue 34's studio in a real browser: the page built by Vite from src/studio/page, served by
 * `ai.studio()` over the suite's Temporal dev server, a real worker serving two agents whose
 * model is the scripted model, driven by the suite's Chromium (playwright-core). One test per
 * check of the issue, in order (later checks use the runs the earlier ones made), each leaving a
 * screenshot in test-artifacts/studio/ (docs/studio/screenshots/ holds a copy of them).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "@temporalio/worker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunHandle } from "../src/index.js";
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptedTurn,
} from "../src/testing/index.js";
import type { StudioServer } from "../src/studio/index.js";
import { launchChromium } from "./support/browser.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import { deferred } from "./support/ops-helpers.js";

const ARTIFACTS = new URL("../test-artifacts/studio/", import.meta.url).pathname;
const COACH = "studio-coach";
const COACH_V2 = "studio-coach-v2";
const GUARD = "studio-guard";
const INJURY_PROMPT = "The user is hurt: acknowledge the injury before any plan.";
const SWAP = "Swap squats for lunges";
const ASK = "What do squats do?";
const DELETE = "Delete my plan";

// ---- the agents and their scripted model ------------------------------------------------------

const text = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? "").join("")
      : "";

/** The answer a run started with `streamText` streams, slowly enough to be watched growing. */
const STORY = "Squats once ruled leg day, until lunges walked in. ".repeat(8).trim();
/** The flaky requests whose first model call has failed. */
const flaked = new Set<string>();
/** While set, a story's answer waits for it (until the page watches the run live). */
let holdStory: Promise<void> | undefined;
/** While set, the first model call of a coach-v2 run waits for it (the fork's answer, held until the page watches it live). */
let holdV2: Promise<void> | undefined;
/** The chat answer a reload interrupts: its first half streams, then it stalls until the test releases it (after the reload). */
const TALE = {
  first: "Once upon a leg day, a squat met a lunge. ",
  rest: "They trained together, and the plan was never the same.",
};
/** While set, the tale's answer stalls after its first half until it settles. */
let holdTale: Promise<void> | undefined;

/**
 * The model, by the conversation: a swap request is first answered with an offer (so
 * `actWhenAsked` re-prompts), then with the `update_plan` call; a question is answered; a delete
 * request calls `delete_plan`, which waits for approval. coach-v2 calls `update_plan` at once.
 */
async function answer(request: ScriptedRequest): Promise<ScriptedTurn> {
  const messages = request.body.messages;
  const input = text(messages.find((m) => m.role === "user")?.content);
  const last = messages[messages.length - 1]!;
  const v2 = request.body.model === "coach-v2-model";
  if (last.role === "tool")
    return /delete/i.test(input) ? "Your plan is deleted." : `Done${v2 ? " (v2)" : ""}: squats are now lunges.`;
  if (/delete/i.test(input)) return { toolCalls: [{ name: "delete_plan", arguments: {} }] };
  if (/tale/i.test(input))
    // the role chunk and the first half, then a stall until the test releases the rest
    return { text: TALE.first + TALE.rest, chunkSize: TALE.first.length, stallAfterChunks: 2, stallUntil: holdTale! };
  if (/explode/i.test(input))
    return {
      status: 404,
      body: { error: { message: "The model coach-missing does not exist", type: "invalid_request_error" } },
    };
  if (/long story/i.test(input)) {
    await holdStory;
    return { text: `${STORY} ${STORY} ${STORY} ${STORY}`, chunksPerSecond: 20 };
  }
  if (/hurt/i.test(input)) return "Sorry about your knee: rest it, and we will plan around it.";
  if (/flaky/i.test(input) && !flaked.has(input)) {
    flaked.add(input); // the first call fails (the server is overloaded), its retry answers
    return { status: 503, body: { error: { message: "The server is overloaded", type: "server_error" } } };
  }
  if (/flaky/i.test(input)) return "Squats are older than gyms.";
  if (/story/i.test(input)) {
    await holdStory;
    return { text: STORY, chunksPerSecond: 20 };
  }
  if (!/swap/i.test(input)) return "Squats work your legs and glutes.";
  if (v2) {
    await holdV2;
    return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
  }
  return messages.some((m) => m.role === "assistant")
    ? { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }
    : "Want me to swap squats for lunges?";
}

function agents(baseURL: string) {
  const tools = [
    ai.tool({
      name: "update_plan",
      description: "Swap an exercise",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async () => ({ ok: true }),
    }),
    ai.tool({
      name: "delete_plan",
      description: "Delete the plan",
      input: z.object({}),
      needsApproval: true,
      execute: async () => ({ deleted: true }),
    }),
  ];
  const pricing = { inputPerMillion: 2.5, outputPerMillion: 10 };
  const actWhenAsked = { intents: [/\bswap\b/i], requiredTools: ["update_plan"] };
  return [
    ai.agent({ name: COACH, tools, actWhenAsked, model: ai.openai("coach-model", { baseURL, pricing }) }),
    ai.agent({ name: COACH_V2, tools, actWhenAsked, model: ai.openai("coach-v2-model", { baseURL, pricing }) }),
    ai.agent({
      name: GUARD,
      model: ai.openai("guard-model", { baseURL, pricing }),
      backstops: [
        {
          name: "injury-capture",
          phase: "before",
          detect: (turn) => /hurt/i.test(turn.input),
          run: () => ({ prompt: INJURY_PROMPT }),
        },
      ],
    }),
  ];
}

// ---- the suite's parts -----------------------------------------------------------------------

let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let workerDone: Promise<void>;
let studio: StudioServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let queue: string;
/** Where the test built the page. */
let assetsDir: string;
let coach: ReturnType<typeof agents>;
const consoleLines: string[] = [];
/** The runs the checks start: three swaps (re-prompted), three questions, one delete (waits for approval). */
const runs: { swaps: string[]; asks: string[]; deletion?: RunHandle; cancelled?: string; failed?: string } = {
  swaps: [],
  asks: [],
};
/** The evals the dataset check runs (the comparison check compares them). */
const evals: string[] = [];

beforeAll(async () => {
  assetsDir = mkdtempSync(join(tmpdir(), "studio-page-"));
  mkdirSync(ARTIFACTS, { recursive: true });
  [harness, model, browser] = await Promise.all([
    connectHarness(),
    startScriptedModel(answer, { usage: { prompt_tokens: 1200, completion_tokens: 300 } }),
    launchChromium(),
    build({ configFile: "src/studio/page/vite.config.ts", build: { outDir: assetsDir }, logLevel: "warn" }),
  ]);
  coach = agents(model.baseURL);
  queue = taskQueue();
  worker = await testWorker(harness, coach, {
    taskQueue: queue,
    searchAttributes: true,
    approvals: { canDecide: ({ by }) => by === "alice" },
  });
  workerDone = worker.run();
  studio = await ai.studio({
    client: harness.client,
    agents: coach,
    port: 0,
    as: "alice",
    taskQueue: queue,
    dataDir: mkdtempSync(join(tmpdir(), "studio-data-")),
    assetsDir,
  });
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error.message}`));

  const start = (input: string) => coach[0]!.start(input, { client: harness.client, taskQueue: queue });
  const finished = await Promise.all([SWAP, SWAP, SWAP, ASK, ASK, ASK].map(start));
  await Promise.all(finished.map((handle) => handle.result()));
  runs.swaps = finished.slice(0, 3).map((h) => h.workflowId);
  runs.asks = finished.slice(3).map((h) => h.workflowId);
  runs.deletion = await start(DELETE);
}, 300_000);

afterEach(async ({ task }) => {
  if (task.result?.state !== "fail") return;
  await page.screenshot({ path: join(ARTIFACTS, `failed-${task.name.slice(0, 30).replace(/\W+/g, "-")}.png`) });
  console.log(`page (${page.url()}):\n${consoleLines.join("\n")}`);
});

afterAll(async () => {
  await browser?.close();
  await studio?.close();
  worker?.shutdown();
  await workerDone;
  await model?.close();
  await harness?.close();
});

/** Polls until the expectation holds: the page catches up with the server (a visibility refresh, a decision's round trip, a live stream). */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
const rows = () => page.getByTestId("run-row");

/** Opens the page at a hash route (`runs?…`, `run/<id>`, `datasets`, `evals`). */
const open = (route: string) => page.goto(`${new URL(studio.url).origin}/#/${route}`);

/** The runs list filtered to the studio's coach agent (and `more` filters), as a user would set them. */
async function openRuns(more: Record<string, string> = {}): Promise<void> {
  await open(`runs?${new URLSearchParams({ agent: COACH, ...more })}`);
  await page.getByTestId("runs").waitFor();
}

// ---- the checks ------------------------------------------------------------------------------

describe("the studio in Chromium", () => {
  it("1. runs: filtered to the runs where actWhenAsked fired, each row with its tokens and cost, a page at a time", async () => {
    await openRuns();
    await page.getByTestId("filter-fired").selectOption("reprompted");
    await page.getByTestId("apply-filters").click();
    await poll(() => rows().evaluateAll((r) => r.map((e) => e.getAttribute("data-workflow-id")).sort())).toEqual(
      [...runs.swaps].sort(),
    );
    expect(page.url()).toContain("fired=reprompted");
    const first = rows().first();
    expect(await first.getByTestId("fired").textContent()).toContain("re-prompted");
    // three trips of 1,500 tokens
    expect(await first.getByTestId("tokens").textContent()).toBe("4,500");
    // and their cost: 3,600 tokens in at $2.50 and 900 out at $10 per million
    expect(await first.getByTestId("cost").textContent()).toBe("$0.0180");
    await shot("runs");
    // one page at a time, by the server's page tokens
    await openRuns({ fired: "reprompted", pageSize: "2" });
    const ids = () => rows().evaluateAll((r) => r.map((e) => e.getAttribute("data-workflow-id")));
    await poll(() => rows().count()).toBe(2);
    const firstPage = await ids();
    await page.getByTestId("next-page").click();
    await poll(ids).toHaveLength(1);
    expect([...firstPage, ...(await ids())].sort()).toEqual([...runs.swaps].sort());
    expect(await page.getByTestId("next-page").isDisabled()).toBe(true);
    await page.getByTestId("prev-page").click();
    await poll(ids).toEqual(firstPage);
    // no agent here has a backstop: "backstop ran" matches none of them
    await page.getByTestId("filter-fired").selectOption("backstopRan");
    await page.getByTestId("apply-filters").click();
    await page.getByTestId("no-runs").waitFor();
    expect(page.url()).toContain("fired=backstopRan");
    await openRuns({ fired: "reprompted" });
    await poll(() => rows().count()).toBe(3);
  });

  it("2. a run as a conversation: the re-prompt marked on its trip, with its reason", async () => {
    await rows().first().getByTestId("open-run").click();
    await page.getByTestId("conversation").waitFor();
    const trip1 = page.locator('[data-testid="trip"][data-trip="1"]');
    await poll(() => trip1.getByTestId("trip-mark").getAttribute("data-kind")).toBe("reprompt");
    expect(await trip1.getByTestId("message").textContent()).toContain("Want me to swap squats for lunges?");
    expect(await trip1.getByTestId("reprompt").textContent()).toContain("actWhenAsked");
    // each trip 1,200 tokens in at $2.50 and 300 out at $10 per million: $0.0060
    expect(await trip1.getByTestId("trip-figures").textContent()).toContain("1,500 tokens · $0.0060");
    expect(await page.getByTestId("run-totals").textContent()).toBe("3 trips · 4,500 tokens · $0.0180");
    const trip2 = page.locator('[data-testid="trip"][data-trip="2"]');
    expect(await trip2.getByTestId("tool-call").getAttribute("data-status")).toBe("ok");
    expect(await trip2.getByTestId("tool-input").textContent()).toContain('"to": "lunges"');
    expect(await page.getByTestId("temporal-link").getAttribute("href")).toContain(
      await page.getByTestId("run-id").innerText(),
    );
    await shot("conversation-reprompt");
  });

  it("3a. approve a waiting call as --as alice: the page and the run's trace say alice", async () => {
    const deletion = runs.deletion!;
    await open(`run/${encodeURIComponent(deletion.workflowId)}`);
    const approval = page.getByTestId("approval");
    await poll(() => approval.getAttribute("data-decision")).toBe("waiting");
    expect(await approval.getByTestId("approve").textContent()).toBe("Approve as alice");
    await shot("approval");
    await approval.getByTestId("approve").click();
    await poll(() => approval.getAttribute("data-decision")).toBe("approved");
    expect(await approval.getByTestId("decision").textContent()).toContain("by alice");
    const result = await deletion.result();
    expect(result.reply).toBe("Your plan is deleted.");
    expect((await deletion.trace()).find((e) => e.type === "approval" && e.outcome === "approved")).toMatchObject({
      by: "alice",
    });
    await poll(() => page.getByTestId("run-status").textContent()).toBe("completed");
  });

  it("3b. fork at trip 2 onto another agent: the fork opens and finishes live", async () => {
    const release = deferred();
    holdV2 = release.promise;
    await open(`run/${encodeURIComponent(runs.swaps[0]!)}`);
    await page.getByTestId("fork").click();
    await page.getByTestId("fork-trip").selectOption("2");
    await page.getByTestId("fork-agent").selectOption(COACH_V2);
    await page.getByTestId("fork-submit").click();
    await poll(async () => page.url()).not.toContain(encodeURIComponent(runs.swaps[0]!));
    const forkId = decodeURIComponent(page.url().split("#/run/")[1]!);
    // The fork's model call is held: the page shows the run in progress, its stream open.
    await poll(() => page.getByTestId("live").textContent()).toBe("live");
    expect(await page.getByTestId("run-status").textContent()).toBe("running");
    expect(await page.getByTestId("run-agent").textContent()).toBe(COACH_V2);
    await shot("fork-live");
    release.resolve();
    holdV2 = undefined;
    await poll(() => page.getByTestId("run-status").textContent()).toBe("completed");
    const answers = page.locator('[data-testid="message"][data-role="assistant"]');
    expect(await answers.last().textContent()).toContain("Done (v2): squats are now lunges.");
    // the conversation before trip 2 came from the recorded run
    expect(await answers.first().textContent()).toContain("Want me to swap squats for lunges?");
    const result = await (await ai.getRun(forkId, { client: harness.client })).result();
    expect(result.forkedFrom).toMatchObject({ workflowId: runs.swaps[0], atTrip: 2 });
    await shot("fork");
  });

  it("3c. without --as the approval buttons are disabled; cancel a waiting run from the page", async () => {
    const waiting = await coach[0]!.start(DELETE, { client: harness.client, taskQueue: queue });
    const readOnly = await ai.studio({ client: harness.client, port: 0, assetsDir });
    const tab = await context.newPage();
    try {
      await tab.goto(`${new URL(readOnly.url).origin}/#/run/${encodeURIComponent(waiting.workflowId)}`);
      const approval = tab.getByTestId("approval");
      await poll(() => approval.getAttribute("data-decision")).toBe("waiting");
      expect(await approval.getByTestId("approve").isDisabled()).toBe(true);
      expect(await approval.getByTestId("approve").getAttribute("title")).toContain("--as");
      expect(await tab.getByTestId("as").textContent()).toContain("no --as");
    } finally {
      await tab.close();
      await readOnly.close();
    }
    await open(`run/${encodeURIComponent(waiting.workflowId)}`);
    await page.getByTestId("cancel").click();
    await poll(() =>
      page
        .getByTestId("run-stop-reason")
        .textContent()
        .catch(() => null),
    ).toBe("stopped: cancelled");
    expect((await waiting.result()).stopReason).toBe("cancelled");
    // A cancelled run is "cancelled", not "completed", and the status filter finds it.
    await poll(() => page.getByTestId("run-status").textContent()).toBe("cancelled");
    runs.cancelled = waiting.workflowId;
    await openRuns({ status: "cancelled" });
    await poll(() => rows().evaluateAll((r) => r.map((e) => e.getAttribute("data-workflow-id")))).toContain(
      waiting.workflowId,
    );
    expect(
      await page
        .locator(`[data-testid="run-row"][data-workflow-id="${waiting.workflowId}"]`)
        .getAttribute("data-status"),
    ).toBe("cancelled");
  });

  it("3d. a run in progress streams live: its answer grows on the page as the model writes it", async () => {
    const release = deferred();
    holdStory = release.promise;
    const story = await coach[0]!.start("Tell me a story about squats", {
      client: harness.client,
      taskQueue: queue,
      streamText: true,
    });
    await open(`run/${encodeURIComponent(story.workflowId)}`);
    await poll(() => page.getByTestId("live").textContent()).toBe("live");
    release.resolve();
    holdStory = undefined;
    const live = page.getByTestId("live-text").locator("p");
    const lengths: number[] = [];
    await poll(async () => {
      const length = (await live.textContent().catch(() => null))?.length ?? 0;
      if (length > (lengths[lengths.length - 1] ?? 0)) lengths.push(length);
      return lengths.length;
    }).toBeGreaterThanOrEqual(3);
    expect(lengths[lengths.length - 1]).toBeLessThan(STORY.length);
    await shot("live-answer");
    await poll(() => page.getByTestId("run-status").textContent()).toBe("completed");
    const answers = page.locator('[data-testid="message"][data-role="assistant"]');
    expect(await answers.last().locator("p").textContent()).toBe(STORY);
    expect(await page.getByTestId("live-text").count()).toBe(0);
  });

  it("4. save 5 runs as a dataset, run an eval of it with a progress bar, open its report; compare two reports", async () => {
    await openRuns({ status: "completed" });
    await poll(() => rows().count()).toBeGreaterThanOrEqual(5);
    // the three re-prompted swaps and two questions (not the deletion, whose replay would wait for approval)
    for (const id of [...runs.swaps, ...runs.asks.slice(0, 2)])
      await page.locator(`[data-testid="run-row"][data-workflow-id="${id}"]`).getByTestId("select-run").check();
    await page.getByTestId("dataset-name").fill("coach-five");
    expect(await page.getByTestId("save-selected").textContent()).toBe("Save 5 selected");
    await page.getByTestId("save-selected").click();
    await poll(() => page.getByTestId("dataset-saved").textContent()).toContain("saved 5 cases");
    // Saving under the same name again is refused, with a way to overwrite on purpose.
    await page
      .locator(`[data-testid="run-row"][data-workflow-id="${runs.swaps[0]}"]`)
      .getByTestId("select-run")
      .check();
    await page.getByTestId("save-selected").click();
    await poll(() => page.getByTestId("dataset-error").textContent()).toContain('A dataset named "coach-five" exists');
    expect(await page.getByTestId("dataset-overwrite").textContent()).toBe("Overwrite coach-five");
    await shot("dataset-exists");
    await page.getByTestId("dataset-overwrite").click();
    await poll(() => page.getByTestId("dataset-saved").textContent()).toContain("saved 1 case ");
    // ...and back to the five
    for (const id of [...runs.swaps, ...runs.asks.slice(0, 2)])
      await page.locator(`[data-testid="run-row"][data-workflow-id="${id}"]`).getByTestId("select-run").check();
    await page.getByTestId("save-selected").click();
    await page.getByTestId("dataset-overwrite").click();
    await poll(() => page.getByTestId("dataset-saved").textContent()).toContain("saved 5 cases");

    await open("datasets");
    const dataset = page.locator('[data-testid="dataset"][data-name="coach-five"]');
    expect(await dataset.getByTestId("dataset-cases").textContent()).toBe("5");
    for (const agent of [COACH, COACH_V2]) {
      await dataset.getByTestId("eval-agent").selectOption(agent);
      expect(await dataset.getByTestId("eval-recorded-tools").isChecked()).toBe(true);
      await dataset.getByTestId("run-eval").click();
      // this eval's bar: until the POST answers, the bar of the eval before (done) is still there
      const earlier = evals.map((id) => `:not([data-eval-id="${id}"])`).join("");
      const progress = dataset.locator(`[data-testid="eval"][data-done="true"]${earlier}`);
      await progress.waitFor({ timeout: 120_000 });
      expect(await progress.getByTestId("eval-count").textContent()).toBe("5/5");
      expect(await progress.getByTestId("eval-progress").getAttribute("value")).toBe("5");
      evals.push((await progress.getAttribute("data-eval-id"))!);
      if (agent === COACH) await shot("eval-progress");
    }
    const [report] = await Promise.all([
      context.waitForEvent("page"),
      dataset.locator('[data-testid="eval"][data-done="true"]').getByTestId("open-report").click(),
    ]);
    await report.waitForLoadState();
    expect(await report.locator("body").textContent()).toContain(COACH_V2);
    await report.close();

    await open("evals");
    await page.locator(`[data-testid="eval-row"][data-eval-id="${evals[0]}"]`).getByTestId("pick-baseline").check();
    await page.locator(`[data-testid="eval-row"][data-eval-id="${evals[1]}"]`).getByTestId("pick-current").check();
    await page.getByTestId("compare-picked").click();
    const scorers = page.getByTestId("compare-scorer");
    await poll(() => scorers.count()).toBeGreaterThan(0);
    const row = await scorers.first().innerText();
    expect(row).toMatch(/95% CI/);
    expect(await scorers.first().getAttribute("data-verdict")).toMatch(/^(better|worse|within noise|not comparable)$/);
    expect(await page.getByTestId("report-frame").count()).toBe(2);
    // headed by what each eval ran: the dataset, the agent and the date, not the evals' ids
    expect(await page.getByTestId("compare-head-a").innerText()).toMatch(
      new RegExp(`dataset coach-five · agent ${COACH}\\b`),
    );
    expect(await page.getByTestId("compare-head-b").innerText()).toContain(`agent ${COACH_V2}`);
    expect(await page.getByTestId("compare-title").innerText()).toMatch(
      /^coach-five · studio-coach · .+ → coach-five · studio-coach-v2 · /,
    );
    await shot("compare");

    // The evals' runs stay out of the runs list unless "show eval runs" is checked.
    await openRuns();
    await poll(() => rows().count()).toBeGreaterThan(0);
    expect(await page.locator(".tag", { hasText: /^eval$/ }).count()).toBe(0);
    await page.getByTestId("show-evals").check();
    await page.getByTestId("apply-filters").click();
    await poll(() => page.locator(".tag", { hasText: /^eval$/ }).count()).toBeGreaterThan(0);
    expect(page.url()).toContain("evals=show");
  });

  it("5. a session shows as one conversation across its messages", async () => {
    const session = coach[0]!.session(`studio-${Date.now()}`, { client: harness.client, taskQueue: queue });
    await session.send(ASK);
    await session.send("And what do lunges do?");
    await open(`run/${encodeURIComponent(session.workflowId)}`);
    const dividers = page.getByTestId("session-message");
    await poll(() => dividers.count()).toBe(2);
    expect(await page.getByTestId("session-runs").textContent()).toContain("A session");
    const users = page.locator('[data-testid="message"][data-role="user"]');
    expect(await users.allTextContents()).toEqual([`user${ASK}`, "userAnd what do lunges do?"]);
    expect(await page.locator('[data-testid="message"][data-role="assistant"]').count()).toBe(2);
    // its figures, summed across its messages: two trips of 1,500 tokens and $0.0060
    await poll(() => page.getByTestId("run-totals").textContent()).toBe("2 trips · 3,000 tokens · $0.0120");
    expect(await page.getByTestId("trip-figures").count()).toBe(2);
    await shot("session");
    await session.end();
  });

  it("6. a failed run shows why it failed: the typed error's name and message", async () => {
    const failed = await coach[0]!.start("Explode, please", { client: harness.client, taskQueue: queue });
    await failed.result().catch(() => undefined);
    runs.failed = failed.workflowId;
    await open(`run/${encodeURIComponent(failed.workflowId)}`);
    const error = page.getByTestId("run-error");
    await poll(() => error.getAttribute("data-type")).toBe("ModelApiError");
    expect(await error.innerText()).toContain("The model coach-missing does not exist");
    expect(await page.getByTestId("run-status").textContent()).toBe("failed");
    await shot("run-error");
  });

  it("7. leaving a streaming run for another (a new hash, Back, Forward) shows none of its answer in the other", async () => {
    const release = deferred();
    holdStory = release.promise;
    const story = await coach[0]!.start("Tell me a long story about squats", {
      client: harness.client,
      taskQueue: queue,
      streamText: true,
    });
    await open(`run/${encodeURIComponent(story.workflowId)}`);
    await poll(() => page.getByTestId("live").textContent()).toBe("live");
    release.resolve();
    holdStory = undefined;
    await poll(
      async () =>
        (
          await page
            .getByTestId("live-text")
            .textContent()
            .catch(() => "")
        )?.length ?? 0,
    ).toBeGreaterThan(0);
    // to the failed run (no answer of its own on trip 1) while the story streams
    await page.evaluate((id) => (window.location.hash = `#/run/${encodeURIComponent(id)}`), runs.failed!);
    await poll(() => page.getByTestId("run-id").textContent()).toBe(runs.failed);
    await poll(() => page.getByTestId("run-status").textContent()).toBe("failed");
    expect(await page.getByTestId("live-text").count()).toBe(0);
    expect(await page.getByTestId("conversation").innerText()).not.toContain("Squats once ruled");
    await page.goBack();
    await poll(() => page.getByTestId("run-id").textContent()).toBe(story.workflowId);
    await page.goForward();
    await poll(() => page.getByTestId("run-id").textContent()).toBe(runs.failed);
    await poll(() => page.getByTestId("run-status").textContent()).toBe("failed");
    expect(await page.getByTestId("live-text").count()).toBe(0);
    expect(await page.getByTestId("conversation").innerText()).not.toContain("Squats once ruled");
    await story.result();
  });

  it("8. runs awaiting approval: a badge, a filter, and a reject with its reason", async () => {
    const waiting = await coach[0]!.start(DELETE, { client: harness.client, taskQueue: queue });
    await openRuns();
    await page.getByTestId("filter-awaiting").selectOption("approval");
    await page.getByTestId("apply-filters").click();
    const row = page.locator(`[data-testid="run-row"][data-workflow-id="${waiting.workflowId}"]`);
    await poll(() =>
      row
        .getByTestId("awaiting-approval")
        .textContent()
        .catch(() => null),
    ).toBe("awaiting approval");
    await poll(() => rows().count()).toBe(1); // the filtered list: the list before it shows the run's badge too
    expect(page.url()).toContain("awaiting=approval");
    expect(await row.getByTestId("first-words").textContent()).toBe(DELETE);
    await shot("awaiting-approval");
    await row.getByTestId("open-run").click();
    const approval = page.getByTestId("approval");
    await poll(() => approval.getAttribute("data-decision")).toBe("waiting");
    await approval.getByTestId("reject").click();
    await approval.getByTestId("reject-reason").fill("Plans are kept until the season ends");
    await shot("reject-reason");
    await approval.getByTestId("reject-confirm").click();
    await poll(() => approval.getAttribute("data-decision")).toBe("rejected");
    expect(await approval.getByTestId("decision-reason").textContent()).toContain(
      "Plans are kept until the season ends",
    );
    const result = await waiting.result();
    expect(result.trace).toContainEqual(
      expect.objectContaining({
        type: "approval",
        outcome: "rejected",
        by: "alice",
        reason: expect.stringContaining("season ends"),
      }),
    );
  });

  it("9. a before-phase backstop's entries sit on the user's message, its prompt labelled as the backstop's", async () => {
    const guard = coach[2]!;
    const handle = await guard.start("I hurt my knee", { client: harness.client, taskQueue: queue });
    await handle.result();
    await open(`run/${encodeURIComponent(handle.workflowId)}`);
    const trip1 = page.locator('[data-testid="trip"][data-trip="1"]');
    await poll(() =>
      trip1
        .getByTestId("backstop-prompt")
        .textContent()
        .catch(() => null),
    ).toBe(INJURY_PROMPT);
    // the order on the page: the user's message, the backstop (with its prompt), then the answer
    const order = await page
      .locator('[data-testid="message"], [data-testid="backstop"]')
      .evaluateAll((nodes) =>
        nodes.map((n) => n.getAttribute("data-role") ?? `backstop:${n.getAttribute("data-phase")}`),
      );
    expect(order).toEqual(["user", "backstop:before", "assistant"]);
    expect(await page.locator('[data-testid="message"][data-role="user"]').allTextContents()).toEqual([
      "userI hurt my knee",
    ]);
    await shot("backstop-before");
  });

  it("10. the approvals queue: every waiting call across runs, decided from the queue with a reason", async () => {
    const first = await coach[0]!.start("Delete my plan for legs", { client: harness.client, taskQueue: queue });
    const second = await coach[0]!.start("Delete my plan for arms", { client: harness.client, taskQueue: queue });
    await open("approvals");
    const queued = (id: string) => page.locator(`[data-testid="queued-approval"][data-workflow-id="${id}"]`);
    await poll(() => queued(second.workflowId).count()).toBe(1);
    await poll(() => queued(first.workflowId).count()).toBe(1);
    expect(await queued(first.workflowId).getByTestId("open-run").textContent()).toBe("Delete my plan for legs");
    await shot("approvals-queue");
    await queued(first.workflowId).getByTestId("reject").click();
    await queued(first.workflowId).getByTestId("reject-reason").fill("Legs stay in the plan");
    await queued(first.workflowId).getByTestId("reject-confirm").click();
    await poll(() => queued(first.workflowId).count()).toBe(0);
    await queued(second.workflowId).getByTestId("approve").click();
    await poll(() => queued(second.workflowId).count()).toBe(0);
    const [rejected, approved] = await Promise.all([first.result(), second.result()]);
    expect(rejected.trace).toContainEqual(
      expect.objectContaining({
        type: "approval",
        outcome: "rejected",
        by: "alice",
        reason: expect.stringContaining("Legs stay"),
      }),
    );
    expect(approved.reply).toBe("Your plan is deleted.");
  });

  it("11. a run's timeline: its model calls, a failed attempt and its retry, the tool's check, the wait for approval, the tool, on one time axis", async () => {
    const flaky = await coach[0]!.start("Tell me a flaky fact", { client: harness.client, taskQueue: queue });
    await flaky.result();
    await open(`run/${encodeURIComponent(flaky.workflowId)}`);
    const steps = page.getByTestId("timeline-step");
    await poll(() => steps.evaluateAll((r) => r.map((e) => e.getAttribute("data-kind")))).toEqual(["retry", "model"]);
    const retry = steps.first();
    expect(await retry.getAttribute("data-state")).toBe("failed");
    expect(await retry.getByTestId("step-outcome").textContent()).toMatch(/retried after: .*overloaded/);
    expect(await steps.nth(1).getByTestId("step-outcome").textContent()).toBe("completed");
    await shot("timeline-retry");
    // the run approved as alice in 3a
    await open(`run/${encodeURIComponent(runs.deletion!.workflowId)}`);
    await poll(() => steps.count()).toBeGreaterThan(0);
    const shown = await steps.evaluateAll((r) =>
      r.map((e) => [e.getAttribute("data-kind"), e.querySelector('[data-testid="step-outcome"]')!.textContent]),
    );
    expect(shown.filter(([kind]) => kind !== "activity")).toEqual([
      ["model", "completed"],
      ["tool", "completed"],
      ["approval", "approved by alice"],
      ["tool", "completed"],
      ["model", "completed"],
    ]);
    const starts = await page.getByTestId("step-start").allTextContents();
    expect(starts[0]).toMatch(/^\+\d/);
    await shot("timeline");
  });

  it("12. edit and fork: new instructions, model and temperature reach the fork's model calls; the fork links its origin and shows the change", async () => {
    const origin = runs.swaps[1]!;
    await open(`run/${encodeURIComponent(origin)}`);
    await page.getByTestId("fork").click();
    await page.getByTestId("fork-trip").selectOption("2");
    await page.getByTestId("fork-agent").selectOption(COACH);
    await page.getByTestId("fork-instructions").fill("You are a terse coach. Answer in one line.");
    await page.getByTestId("fork-model").fill("coach-model-terse");
    await page.getByTestId("fork-temperature").fill("0.3");
    await shot("fork-edit");
    const before = model.requests.length;
    await page.getByTestId("fork-submit").click();
    await poll(async () => page.url()).not.toContain(encodeURIComponent(origin));
    await poll(() => page.getByTestId("run-status").textContent()).toBe("completed");
    const sent = model.requests.slice(before).map((r) => r.body);
    expect(sent.map((b) => [b.model, b.temperature, b.messages[0]])).toEqual(
      sent.map(() => [
        "coach-model-terse",
        0.3,
        { role: "system", content: "You are a terse coach. Answer in one line." },
      ]),
    );
    expect(sent.length).toBe(2); // trip 2 (the tool call) and trip 3 (the answer)
    const forkedFrom = page.getByTestId("forked-from");
    expect(await forkedFrom.textContent()).toContain("at trip 2");
    expect(await forkedFrom.getByTestId("change-model").textContent()).toBe("model coach-model-terse");
    expect(await forkedFrom.getByTestId("change-settings").textContent()).toContain('{"temperature":0.3}');
    expect(await forkedFrom.getByTestId("change-instructions").textContent()).toContain("terse coach");
    // the fork's own steps only: the recorded run's re-prompt of trip 1 happened there, not here
    const kinds = page.getByTestId("timeline-step");
    expect(await kinds.evaluateAll((r) => r.map((e) => e.getAttribute("data-kind")))).toEqual([
      "model",
      "tool",
      "model",
    ]);
    expect(await page.getByTestId("timeline").textContent()).toContain("model coach-model-terse · trip 2");
    await shot("fork-edited");
    await forkedFrom.getByTestId("forked-from-link").click();
    await poll(() => page.getByTestId("run-id").textContent()).toBe(origin);
  });

  it("13. the chat panel: a session of an agent through its chat handler, the answer streaming, a call approved from the chat as alice", async () => {
    await open(`chat?agent=${COACH}`);
    await page.getByTestId("chat-input").fill("Delete my plan, please");
    await page.getByTestId("chat-send").click();
    const tool = page.getByTestId("chat-tool");
    await poll(() => tool.getAttribute("data-state")).toBe("waiting");
    expect(await tool.textContent()).toContain("delete_plan");
    const chatId = new URL(page.url().replace("#/", "")).searchParams.get("id")!;
    expect(chatId).toMatch(/^studio-chat-/);
    expect(await page.getByTestId("chat-approve").textContent()).toBe("Approve as alice");
    await shot("chat-approval");
    await page.getByTestId("chat-approve").click();
    const answers = page.locator('[data-testid="chat-message"][data-role="assistant"]');
    await poll(() => answers.last().getByTestId("chat-text").textContent()).toContain("Your plan is deleted.");
    expect(await tool.getAttribute("data-state")).toBe("done");
    await shot("chat");
    // the chat's id is in the URL: a reload shows its history, from the chat handler
    await page.reload();
    await poll(() => answers.last().getByTestId("chat-text").textContent()).toContain("Your plan is deleted.");
    expect(await page.locator('[data-testid="chat-message"][data-role="user"]').first().textContent()).toBe(
      "Delete my plan, please",
    );
    expect(await tool.getAttribute("data-state")).toBe("done");
    // the chat is a session of the agent: its run page shows the approval decided by alice
    await page.getByTestId("chat-run-link").click();
    expect(page.url()).toContain(encodeURIComponent(`${COACH}-session-${chatId}`));
    await poll(() => page.getByTestId("approval").getAttribute("data-decision")).toBe("approved");
    expect(await page.getByTestId("decision").textContent()).toContain("by alice");
  });

  it("14. the chat panel, reloaded mid-answer, resumes the answer in flight: the rest streams in, once, nothing twice", async () => {
    const release = deferred();
    holdTale = release.promise;
    await open(`chat?agent=${COACH}`);
    await page.getByTestId("chat-input").fill("Tell me a tale");
    await page.getByTestId("chat-send").click();
    const answers = page.locator('[data-testid="chat-message"][data-role="assistant"]');
    const users = page.locator('[data-testid="chat-message"][data-role="user"]');
    // the first half is on the page, and the model holds the rest: the reload comes mid-answer
    await poll(() => answers.last().getByTestId("chat-text").textContent()).toBe(TALE.first);
    expect(page.url()).toContain("id=studio-chat-");
    await page.reload();
    // the history (the user's message), then the answer in flight, replayed from its start: its text once
    await poll(() => answers.last().getByTestId("chat-text").textContent()).toBe(TALE.first);
    expect(await page.getByTestId("chat").getAttribute("data-busy")).toBe("true");
    expect(await users.allTextContents()).toEqual(["Tell me a tale"]);
    expect(await answers.count()).toBe(1);
    await shot("chat-resumed");
    release.resolve();
    holdTale = undefined;
    // the rest streams into the same message; the stream's end leaves one answer with the whole text
    await poll(() => page.getByTestId("chat").getAttribute("data-busy")).toBe("false");
    expect(await answers.allTextContents()).toEqual([TALE.first + TALE.rest]);
    expect(await users.allTextContents()).toEqual(["Tell me a tale"]);
    // reloaded once the answer has ended: the history holds it, and nothing is resumed on top of it
    await page.reload();
    await poll(() => answers.allTextContents()).toEqual([TALE.first + TALE.rest]);
    await poll(() => page.getByTestId("chat").getAttribute("data-busy")).toBe("false");
    expect(await answers.allTextContents()).toEqual([TALE.first + TALE.rest]);
    // a link to a chat that does not exist (or is another user's) says so, in the handler's words
    await open(`chat?agent=${COACH}&id=studio-chat-none`);
    await poll(() =>
      page
        .getByTestId("chat-error")
        .textContent()
        .catch(() => null),
    ).toBe("No such chat.");
  });

  it("a request without the token, when one is set, gets 401; with it, the page and the API answer", async () => {
    const locked = await ai.studio({ client: harness.client, port: 0, token: "studio-s3cret", assetsDir });
    try {
      const base = new URL(locked.url).origin;
      const without = await fetch(`${base}/api/meta`);
      expect(without.status).toBe(401);
      expect(await without.json()).toEqual({ error: expect.stringMatching(/token/i) });
      expect((await fetch(`${base}/`)).status).toBe(401);
      const bearer = await fetch(`${base}/api/meta`, { headers: { authorization: "Bearer studio-s3cret" } });
      expect(bearer.status).toBe(200);
      // ?token= on the first load sets the cookie the page's own requests then carry
      const other = await browser.newContext();
      const tab = await other.newPage();
      await tab.goto(`${base}/?token=studio-s3cret`);
      await tab.getByTestId("as").waitFor();
      expect(tab.url()).not.toContain("token=");
      expect(await tab.getByTestId("runs").isVisible()).toBe(true);
      await other.close();
    } finally {
      await locked.close();
    }
  });
});
