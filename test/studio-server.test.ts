/**
 * Issue 34, the studio's server: its JSON API over real runs on the suite's dev server, with a
 * real worker and the scripted model, asked over real HTTP. The token (401, Bearer, the cookie),
 * a non-loopback host without one, the runs list filtered to runs where actWhenAsked fired (and
 * to runs whose backstop ran), each row's cost, a run
 * as a conversation with its re-prompt on its trip, an approval as `as` (and the worker's
 * canDecide refusing another name), a fork at trip 2 onto another agent, a dataset of 5 runs, an
 * eval with its progress and report, two reports compared, and an encrypted run read with and
 * without the codec. The page's browser tests are in test/studio-page.test.ts.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, encryptedDataConverter, StudioOptionsError, type Agent, type AgentOptions } from "../src/index.js";
import type {
  ApprovalItem,
  ApprovalsResponse,
  CompareResponse,
  DatasetResponse,
  EvalProgress,
  MetaResponse,
  RunsResponse,
  RunView,
  StudioServer,
} from "../src/studio/index.js";
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptedTurn,
} from "../src/testing/index.js";
import { keyring, newKey } from "./support/codec-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { ask, byAgent, instructionsOf, usageByAgent } from "./support/subagent-helpers.js";
import { connectHarness, taskQueue, testWorker, withWorker, type Harness } from "./support/harness.js";

const TOKEN = "studio-test-token";
const OFFER = "Want me to swap that?";

let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let running: Promise<void>;
let studio: StudioServer;
let queue: string;
const suffix = randomUUID().slice(0, 8);
let coach: Agent;
let other: Agent;
let careful: Agent;

/**
 * A swap request is first answered with an offer (no tool call), so actWhenAsked re-prompts; the
 * re-prompted model swaps, then says "Done.". "Delete" calls a tool that waits for approval.
 */
function script({ body }: ScriptedRequest): ScriptedTurn {
  const messages = body.messages;
  const last = messages.at(-1)!;
  if (last.role === "tool") return "Done.";
  // The user's own message: the last that is not actWhenAsked's hint (which names the tool).
  const asked = messages.findLastIndex((m) => m.role === "user" && !String(m.content).includes("update_plan"));
  const first = String(messages[asked]?.content ?? "");
  const answered = messages.slice(asked).some((m) => m.role === "assistant");
  if (/delete/i.test(first)) return { toolCalls: [{ name: "delete_plan", arguments: { plan: "legs" } }] };
  const to = /for (\w+)/.exec(first)?.[1];
  if (to === undefined) return "Hello!";
  return answered ? { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }] } : OFFER;
}

const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ to }) => ({ ok: true, swappedTo: to }),
});
const deletePlan = ai.tool({
  name: "delete_plan",
  input: z.object({ plan: z.string() }),
  needsApproval: true,
  execute: async () => ({ deleted: true }),
});

function api(path: string, init: RequestInit = {}, server: StudioServer = studio): Promise<Response> {
  return fetch(new URL(path, `http://127.0.0.1:${server.port}`), {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...init.headers },
  });
}

async function json<T>(path: string, init: RequestInit = {}, server?: StudioServer): Promise<T> {
  const response = await api(path, init, server);
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${body.error}`);
  return body;
}

const post = <T>(path: string, body: unknown, server?: StudioServer) =>
  json<T>(path, { method: "POST", body: JSON.stringify(body) }, server);

/** Visibility is eventually consistent: asks the studio until `check` holds for the page. */
async function runsUntil(path: string, check: (page: RunsResponse) => boolean): Promise<RunsResponse> {
  for (let i = 0; i < 200; i++) {
    const page = await json<RunsResponse>(path);
    if (check(page)) return page;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the studio never listed what was expected for ${path}`);
}

async function evalDone(id: string): Promise<EvalProgress[]> {
  const seen: EvalProgress[] = [];
  for (let i = 0; i < 1200; i++) {
    const progress = await json<EvalProgress>(`/api/evals/${id}`);
    seen.push(progress);
    if (progress.done) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`eval ${id} never finished`);
}

/** A GET with a Host header of our choosing (fetch does not let one be set). */
function statusFor(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ port, path, host: "127.0.0.1", headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    })
      .on("error", reject)
      .end();
  });
}

const run = (agent: Agent, input: string) => agent.run(input, { client: harness.client, taskQueue: queue });

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(script);
  const llm = ai.openai("gpt-test", { baseURL: model.baseURL });
  const actWhenAsked = { intents: [/\bswap\b/i], requiredTools: ["update_plan"] };
  coach = ai.agent({ name: `studio-coach-${suffix}`, model: llm, tools: [updatePlan], actWhenAsked });
  other = ai.agent({ name: `studio-other-${suffix}`, model: llm, tools: [updatePlan] });
  careful = ai.agent({ name: `studio-careful-${suffix}`, model: llm, tools: [deletePlan] });
  queue = taskQueue();
  worker = await testWorker(harness, [coach, other, careful], {
    taskQueue: queue,
    searchAttributes: true,
    approvals: { canDecide: ({ by }) => by === "alice" },
  });
  running = worker.run();
  studio = await ai.studio({
    client: harness.client,
    agents: [coach, other, careful],
    port: 0,
    token: TOKEN,
    as: "alice",
    taskQueue: queue,
    dataDir: mkdtempSync(join(tmpdir(), "studio-")),
  });
});

afterAll(async () => {
  await studio?.close();
  worker?.shutdown();
  await running;
  await model?.close();
  await harness?.close();
});

describe("the token", () => {
  it("a request without it gets 401 JSON; with it as a Bearer header, 200", async () => {
    const without = await fetch(new URL("/api/meta", `http://127.0.0.1:${studio.port}`));
    expect(without.status).toBe(401);
    expect(((await without.json()) as { error: string }).error).toMatch(/token/);
    const wrong = await api("/api/meta", { headers: { authorization: "Bearer not-the-token" } });
    expect(wrong.status).toBe(401);
    const meta = await json<MetaResponse>("/api/meta");
    expect(meta).toMatchObject({ as: "alice", canFork: true, canEval: true });
    expect(meta.agents.map((a) => a.name)).toEqual([coach.name, other.name, careful.name]);
    expect(meta.agents[0]!.version).toBe(coach.version);
  });

  it("?token= sets an HttpOnly, SameSite=Strict cookie that lets later requests in", async () => {
    const base = `http://127.0.0.1:${studio.port}`;
    expect(studio.url).toBe(`http://127.0.0.1:${studio.port}/?token=${TOKEN}`);
    const first = await fetch(`${base}/api/meta?token=${TOKEN}`);
    expect(first.status).toBe(200);
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const later = await fetch(`${base}/api/meta`, { headers: { cookie: cookie.split(";")[0]! } });
    expect(later.status).toBe(200);
  });

  it("binding a non-loopback host without a token is a StudioOptionsError; with one it serves", async () => {
    const error = await ai.studio({ client: harness.client, host: "0.0.0.0", port: 0 }).catch((e: unknown) => e);
    expect(StudioOptionsError.isInstance(error)).toBe(true);
    expect((error as StudioOptionsError).field).toBe("token");
    const open = await ai.studio({ client: harness.client, host: "0.0.0.0", port: 0, token: TOKEN });
    try {
      expect((await fetch(`http://127.0.0.1:${open.port}/api/meta`)).status).toBe(401);
    } finally {
      await open.close();
    }
  });

  it("without a token, a request for a host that is not loopback (DNS rebinding) is refused", async () => {
    const local = await ai.studio({
      client: harness.client,
      port: 0,
      assetsDir: mkdtempSync(join(tmpdir(), "no-page-")),
    });
    try {
      expect((await fetch(`http://127.0.0.1:${local.port}/api/meta`)).status).toBe(200);
      const rebound = await statusFor(local.port, "/api/meta", "evil.example");
      expect(rebound).toBe(403);
      const page = await fetch(`http://127.0.0.1:${local.port}/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/npm run build:studio/);
    } finally {
      await local.close();
    }
  });
});

describe("runs and a run as a conversation", () => {
  let reprompted: string;
  let plain: string;

  beforeAll(async () => {
    reprompted = (await run(coach, "Swap squats for lunges")).workflowId;
    plain = (await run(coach, "Hi there")).workflowId;
  });

  it("the runs list filters to the runs where actWhenAsked fired, with trips and tokens from the search attributes", async () => {
    const all = await runsUntil(`/api/runs?agent=${coach.name}`, (page) =>
      [reprompted, plain].every((id) => page.runs.some((r) => r.workflowId === id && r.stopReason)),
    );
    const row = all.runs.find((r) => r.workflowId === reprompted)!;
    expect(row).toMatchObject({
      agent: coach.name,
      version: coach.version,
      status: "completed",
      stopReason: "answered",
      trips: 3,
    });
    expect(row.fired).toMatchObject({ reprompted: true, refusalRetried: false });
    const fired = await json<RunsResponse>(`/api/runs?agent=${coach.name}&fired=reprompted`);
    expect(fired.runs.map((r) => r.workflowId)).toContain(reprompted);
    expect(fired.runs.map((r) => r.workflowId)).not.toContain(plain);
    const bad = await api(`/api/runs?fired=sometimes`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/fired/);
  });

  it("pages with nextPageToken, one page per request", async () => {
    await runsUntil(`/api/runs?agent=${coach.name}`, (page) => page.runs.length >= 2);
    const first = await json<RunsResponse>(`/api/runs?agent=${coach.name}&pageSize=1`);
    expect(first.runs).toHaveLength(1);
    expect(first.nextPageToken).toBeDefined();
    const second = await json<RunsResponse>(
      `/api/runs?agent=${coach.name}&pageSize=1&pageToken=${first.nextPageToken}`,
    );
    expect(second.runs).toHaveLength(1);
    expect(second.runs[0]!.workflowId).not.toBe(first.runs[0]!.workflowId);
  });

  it("a run shows its messages, the re-prompt on its trip with its reason, the tool call, and per-trip figures", async () => {
    const view = await json<RunView>(`/api/runs/${reprompted}`);
    expect(view).toMatchObject({
      workflowId: reprompted,
      agent: coach.name,
      version: coach.version,
      status: "completed",
      encrypted: false,
    });
    expect(view.temporalUiUrl).toContain(`/workflows/${reprompted}/`);
    expect(view.items.map((item) => item.type)).toEqual(["user", "assistant", "reprompt", "tool-call", "assistant"]);
    expect(view.items[1]).toEqual({ type: "assistant", text: OFFER, trip: 1 });
    expect(view.items[2]).toMatchObject({ type: "reprompt", trip: 1, reason: expect.stringMatching(/actWhenAsked/) });
    expect(view.items[3]).toMatchObject({
      type: "tool-call",
      tool: "update_plan",
      input: { from: "squats", to: "lunges" },
      output: { ok: true, swappedTo: "lunges" },
      status: "ok",
      trip: 2,
    });
    expect(view.trips.map((t) => t.trip)).toEqual([1, 2, 3]);
    expect(view.trips.every((t) => (t.modelLatencyMs ?? -1) >= 0)).toBe(true);
    const callId = (view.items[3] as { callId: string }).callId;
    expect(view.trips[1]!.toolLatenciesMs[callId]).toBeGreaterThanOrEqual(0);
  });

  it("a finished run's live stream is the library's SSE, ending in run.finished", async () => {
    const response = await api(`/api/runs/${plain}/stream`);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const text = await response.text();
    expect(text).toMatch(/event: run\.finished/);
  });

  it("an unknown run is a 404 with the reason", async () => {
    const response = await api(`/api/runs/no-such-run-${suffix}`);
    expect(response.status).toBe(404);
  });
});

describe("cost and backstops in the runs list", () => {
  const priced = `studio-priced-${suffix}`;
  let guarded: string;
  let unguarded: string;
  let costs: Map<string, number | undefined>;

  beforeAll(async () => {
    // Its own model (one that reports usage), priced, and its own worker.
    const reporting = await startScriptedModel(() => ({
      text: "Noted.",
      usage: { prompt_tokens: 40, completion_tokens: 10 },
    }));
    const agent = ai.agent({
      name: priced,
      model: ai.openai("gpt-test", {
        baseURL: reporting.baseURL,
        pricing: { inputPerMillion: 3, outputPerMillion: 15 },
      }),
      backstops: [
        {
          name: "injury-capture",
          phase: "before",
          detect: (t) => /hurt/.test(t.input),
          run: () => ({ prompt: "Acknowledge the injury." }),
        },
      ],
    });
    try {
      const results = await withWorker(
        harness,
        [agent],
        ({ taskQueue }) =>
          Promise.all(
            ["I hurt my knee", "Plan my week"].map((input) => agent.run(input, { client: harness.client, taskQueue })),
          ),
        { searchAttributes: true },
      );
      [guarded, unguarded] = results.map((r) => r.workflowId) as [string, string];
      costs = new Map(results.map((r) => [r.workflowId, r.usage?.costUsd]));
    } finally {
      await reporting.close();
    }
  });

  it("each row shows the run's cost (its usage.costUsd) beside its tokens", async () => {
    const page = await runsUntil(`/api/runs?agent=${priced}`, (p) =>
      [guarded, unguarded].every((id) => p.runs.some((r) => r.workflowId === id && r.stopReason)),
    );
    for (const id of [guarded, unguarded]) {
      const row = page.runs.find((r) => r.workflowId === id)!;
      expect(costs.get(id)).toBeGreaterThan(0);
      expect(row.cost).toBe(costs.get(id));
      expect(row.tokens).toBe(50);
    }
    // Runs of an unpriced model have no cost.
    const unpricedRows = await runsUntil(`/api/runs?agent=${coach.name}`, (p) => p.runs.length > 0);
    expect(unpricedRows.runs.every((r) => r.cost === undefined)).toBe(true);
  });

  it("a before-phase backstop sits on the user's message, before the answer, its prompt labelled as the backstop's", async () => {
    const view = await json<RunView>(`/api/runs/${guarded}`);
    expect(view.items.map((item) => item.type)).toEqual(["user", "backstop", "assistant"]);
    expect(view.items[0]).toEqual({ type: "user", text: "I hurt my knee" });
    expect(view.items[1]).toMatchObject({
      type: "backstop",
      name: "injury-capture",
      phase: "before",
      trip: 1,
      prompt: "Acknowledge the injury.",
    });
    expect(view.items.filter((item) => item.type === "user")).toHaveLength(1);
  });

  it("fired=backstopRan lists the run whose backstop ran and not the one without", async () => {
    const page = await runsUntil(`/api/runs?agent=${priced}&fired=backstopRan`, (p) =>
      p.runs.some((r) => r.workflowId === guarded),
    );
    expect(page.runs.map((r) => r.workflowId)).toEqual([guarded]);
    expect(page.runs[0]!.fired).toEqual({ reprompted: false, refusalRetried: false, backstopRan: true });
    const all = await json<RunsResponse>(`/api/runs?agent=${priced}`);
    expect(all.runs.find((r) => r.workflowId === unguarded)!.fired.backstopRan).toBe(false);
  });
});

describe("a session", () => {
  it("shows as one conversation across its messages, each marked with its index", async () => {
    const session = coach.session(randomUUID(), { client: harness.client, taskQueue: queue });
    await session.send("Hi there");
    await session.send("Swap squats for lunges");
    const view = await json<RunView>(`/api/runs/${session.workflowId}`);
    expect(view.session?.runs).toHaveLength(1);
    expect(view.items.filter((item) => item.type === "session-message")).toEqual([
      { type: "session-message", index: 0, status: "answered" },
      { type: "session-message", index: 1, status: "answered" },
    ]);
    expect(view.items.filter((item) => item.type === "user")).toEqual([
      { type: "user", text: "Hi there" },
      { type: "user", text: "Swap squats for lunges" },
    ]);
    expect(view.items.some((item) => item.type === "reprompt")).toBe(true);
    await session.end();
  });
});

describe("acting on a run", () => {
  it("approves a waiting call as alice: the trace says alice, and the worker's canDecide refuses bob (403)", async () => {
    const handle = await careful.start("Delete my legs plan", { client: harness.client, taskQueue: queue });
    let waiting: ApprovalItem | undefined;
    for (let i = 0; i < 200 && !waiting; i++) {
      const view = await json<RunView>(`/api/runs/${handle.workflowId}`);
      waiting = view.items.find((item): item is ApprovalItem => item.type === "approval" && !item.decision);
      if (!waiting) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(waiting).toMatchObject({ type: "approval", tool: "delete_plan" });
    const bob = await ai.studio({ client: harness.client, port: 0, token: TOKEN, as: "bob" });
    try {
      const refused = await api(
        `/api/runs/${handle.workflowId}/approvals/${waiting!.callId}`,
        { method: "POST", body: JSON.stringify({ decision: "approve" }) },
        bob,
      );
      expect(refused.status).toBe(403);
    } finally {
      await bob.close();
    }
    await post(`/api/runs/${handle.workflowId}/approvals/${waiting!.callId}`, { decision: "approve" });
    const result = await handle.result();
    expect(result.trace).toContainEqual(
      expect.objectContaining({ type: "approval", outcome: "approved", by: "alice" }),
    );
    const view = await json<RunView>(`/api/runs/${handle.workflowId}`);
    expect(view.items.find((item) => item.type === "approval")).toMatchObject({
      decision: "approved",
      by: "alice",
      at: expect.any(String),
    });
    expect(view.items.find((item) => item.type === "tool-call")).toMatchObject({
      status: "ok",
      output: { deleted: true },
    });
  });

  it("cancels a run waiting for approval: its status is cancelled, and the cancelled filter finds it", async () => {
    const handle = await careful.start("Delete my arms plan", { client: harness.client, taskQueue: queue });
    // as a person would: once the run shows its call waiting
    await runsUntil(`/api/runs?agent=${careful.name}&awaiting=approval`, (page) =>
      page.runs.some((r) => r.workflowId === handle.workflowId),
    );
    await post(`/api/runs/${handle.workflowId}/cancel`, {});
    const result = await handle.result();
    expect(result.stopReason).toBe("cancelled");
    expect((await json<RunView>(`/api/runs/${handle.workflowId}`)).status).toBe("cancelled");
    const cancelled = await runsUntil(`/api/runs?agent=${careful.name}&status=cancelled`, (page) =>
      page.runs.some((r) => r.workflowId === handle.workflowId),
    );
    expect(cancelled.runs.find((r) => r.workflowId === handle.workflowId)).toMatchObject({
      status: "cancelled",
      stopReason: "cancelled",
    });
    const completed = await json<RunsResponse>(`/api/runs?agent=${careful.name}&status=completed`);
    expect(completed.runs.map((r) => r.workflowId)).not.toContain(handle.workflowId);
  });

  it("a run waiting for approval is badged and filtered as awaiting approval; a reject records its reason", async () => {
    const handle = await careful.start("Delete my core plan", { client: harness.client, taskQueue: queue });
    const page = await runsUntil(`/api/runs?agent=${careful.name}&awaiting=approval`, (p) =>
      p.runs.some((r) => r.workflowId === handle.workflowId),
    );
    expect(page.runs.every((r) => r.status === "running" && (r.awaitingApproval ?? 0) > 0)).toBe(true);
    expect(page.runs.find((r) => r.workflowId === handle.workflowId)).toMatchObject({
      awaitingApproval: 1,
      firstWords: "Delete my core plan",
    });
    const view = await json<RunView>(`/api/runs/${handle.workflowId}`);
    const waiting = view.items.find((item): item is ApprovalItem => item.type === "approval")!;
    // the queue across runs has the call, with its run's first words and its input
    const calls = await json<ApprovalsResponse>("/api/approvals");
    expect(calls.truncated).toBe(false);
    expect(calls.approvals).toContainEqual({
      workflowId: handle.workflowId,
      runId: expect.any(String),
      agent: careful.name,
      firstWords: "Delete my core plan",
      startTime: expect.any(String),
      callId: waiting.callId,
      tool: "delete_plan",
      agents: [careful.name],
      input: { plan: "legs" },
      trip: 1,
    });
    await post(`/api/runs/${handle.workflowId}/approvals/${waiting.callId}`, {
      decision: "reject",
      reason: "the core plan stays until Friday",
    });
    const result = await handle.result();
    expect(result.trace).toContainEqual(
      expect.objectContaining({
        type: "approval",
        outcome: "rejected",
        by: "alice",
        reason: expect.stringContaining("the core plan stays until Friday"),
      }),
    );
    const after = await json<RunView>(`/api/runs/${handle.workflowId}`);
    expect(after.items.find((item) => item.type === "approval")).toMatchObject({
      decision: "rejected",
      by: "alice",
      reason: expect.stringContaining("the core plan stays until Friday"),
    });
    const bad = await api(`/api/runs/${handle.workflowId}/approvals/${waiting.callId}`, {
      method: "POST",
      body: JSON.stringify({ decision: "reject", reason: 42 }),
    });
    expect(bad.status).toBe(400);
    const none = await json<RunsResponse>(`/api/runs?agent=${careful.name}&awaiting=approval`);
    expect(none.runs.map((r) => r.workflowId)).not.toContain(handle.workflowId);
    const emptied = await json<ApprovalsResponse>("/api/approvals");
    expect(emptied.approvals.map((a) => a.workflowId)).not.toContain(handle.workflowId);
  });

  it("forks a run at trip 2 onto another agent of the module, which finishes", async () => {
    const recorded = await run(coach, "Swap squats for rows");
    const { workflowId } = await post<{ workflowId: string }>(`/api/runs/${recorded.workflowId}/fork`, {
      atTrip: 2,
      agent: other.name,
    });
    const result = await (await ai.getRun(workflowId, { client: harness.client })).result();
    expect(result.forkedFrom).toMatchObject({ workflowId: recorded.workflowId, atTrip: 2 });
    expect(result.reply).toBe("Done.");
    const view = await json<RunView>(`/api/runs/${workflowId}`);
    expect(view.agent).toBe(other.name);
    expect(view.items.at(-1)).toMatchObject({ type: "assistant", text: "Done." });
    const unknown = await api(`/api/runs/${recorded.workflowId}/fork`, {
      method: "POST",
      body: JSON.stringify({ atTrip: 2, agent: "nobody" }),
    });
    expect(unknown.status).toBe(400);
  });

  it("edit and fork: the fork's model calls get the new instructions, model and settings; its view links its origin, records the change", async () => {
    const recorded = await run(coach, "Swap squats for dips");
    const before = model.requests.length;
    const edits = { instructions: "You coach in French.", model: "gpt-test-b", modelSettings: { temperature: 0.2 } };
    const { workflowId } = await post<{ workflowId: string }>(`/api/runs/${recorded.workflowId}/fork`, {
      atTrip: 2,
      agent: coach.name,
      ...edits,
    });
    const forked = await ai.getRun(workflowId, { client: harness.client });
    const result = await forked.result();
    expect(result.reply).toBe("Done.");
    // the workflow change (the run's overrides reach its model calls) replays; RECORD_FIXTURES keeps the history
    await replaysAndKeeps(forked, "fork-edited");
    const sent = model.requests.slice(before).map((r) => r.body);
    expect(sent.length).toBeGreaterThan(0);
    for (const body of sent) {
      expect(body.model).toBe("gpt-test-b");
      expect(body.temperature).toBe(0.2);
      expect(body.messages[0]).toEqual({ role: "system", content: "You coach in French." });
    }
    const view = await json<RunView>(`/api/runs/${workflowId}`);
    expect(view.forkedFrom).toEqual({
      workflowId: recorded.workflowId,
      runId: recorded.runId,
      atTrip: 2,
      changes: edits,
    });
    // the timeline: the fork's own model calls (trip 2 on) under the new model id, and its tool call
    const kinds = view.timeline.steps.filter((s) => s.kind === "model" || s.kind === "tool");
    expect(kinds.map((s) => [s.kind, s.label])).toEqual([
      ["model", "model gpt-test-b · trip 2"],
      ["tool", "tool update_plan"],
      ["model", "model gpt-test-b · trip 3"],
    ]);
    for (const step of kinds) {
      expect(step.outcome).toBe("completed");
      expect(step.durationMs).toBeGreaterThan(0);
    }
    expect(kinds.map((s) => s.startMs)).toEqual([...kinds.map((s) => s.startMs)].sort((a, b) => a - b));
    // a fork with no edits records none
    const plain = await post<{ workflowId: string }>(`/api/runs/${recorded.workflowId}/fork`, {
      atTrip: 1,
      agent: coach.name,
    });
    await (await ai.getRun(plain.workflowId, { client: harness.client })).result();
    expect((await json<RunView>(`/api/runs/${plain.workflowId}`)).forkedFrom?.changes).toEqual({});
    // edits that cannot be: each a 400 naming what to fix
    for (const [body, says] of [
      [{ instructions: 5 }, /`instructions` must be a string/],
      [{ modelSettings: [0.2] }, /`modelSettings` must be an object/],
      [{ modelSettings: { temperature: "hot" } }, /temperature/],
    ] as const) {
      const refused = await api(`/api/runs/${recorded.workflowId}/fork`, {
        method: "POST",
        body: JSON.stringify({ atTrip: 2, agent: coach.name, ...body }),
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(says);
    }
  });

  it("a run's timeline: the model call, the wait for approval (who decided), the tool, the next model call, in time order", async () => {
    const handle = await careful.start("Delete my plan", { client: harness.client, taskQueue: queue });
    await expect.poll(async () => (await handle.pendingApprovals()).length, { timeout: 30_000 }).toBe(1);
    const waiting = await json<RunView>(`/api/runs/${handle.workflowId}`);
    expect(waiting.timeline.steps.find((s) => s.kind === "approval")).toMatchObject({
      state: "running",
      outcome: "waiting",
    });
    const [call] = await handle.pendingApprovals();
    await handle.approve(call!.callId, { by: "alice" });
    await handle.result();
    const view = await json<RunView>(`/api/runs/${handle.workflowId}`);
    const steps = view.timeline.steps.filter((s) => ["model", "tool", "approval"].includes(s.kind));
    // the tool is called twice: first to check its input and learn that it needs approval, then, approved, to run
    expect(steps.map((s) => [s.kind, s.trip, s.outcome])).toEqual([
      ["model", 1, "completed"],
      ["tool", 1, "completed"],
      ["approval", 1, "approved by alice"],
      ["tool", 1, "completed"],
      ["model", 2, "completed"],
    ]);
    const [model1, check, approval, tool] = steps;
    expect(check!.startMs).toBeGreaterThanOrEqual(model1!.startMs + model1!.durationMs);
    expect(approval!.startMs).toBe(check!.startMs + check!.durationMs);
    // the call's latency in the conversation is the approved call's, not the check's
    const called = steps[3]!;
    expect(view.trips.find((t) => t.trip === 1)!.toolLatenciesMs[call!.callId]).toBe(called.durationMs);
    expect(tool!.startMs).toBeGreaterThanOrEqual(approval!.startMs + approval!.durationMs - 50);
    expect(view.timeline.durationMs).toBeGreaterThanOrEqual(approval!.durationMs);
  });
});

describe("from runs to data", () => {
  it("saves 5 runs as a dataset, evaluates it with recorded tools (progress, then the report), and compares two reports", async () => {
    const ids: string[] = [];
    for (const to of ["lunges", "rows", "dips", "pushups", "planks"])
      ids.push((await run(coach, `Swap squats for ${to}`)).workflowId);
    const saved = await post<DatasetResponse>("/api/datasets", { name: `five-${suffix}`, workflowIds: ids });
    expect(saved.cases).toBe(5);
    const { datasets } = await json<{ datasets: { name: string; cases: number }[] }>("/api/datasets");
    expect(datasets).toContainEqual(expect.objectContaining({ name: `five-${suffix}`, cases: 5 }));
    // The name is taken: refused with 409 and what to do, unless the request says to overwrite.
    const again = await api("/api/datasets", {
      method: "POST",
      body: JSON.stringify({ name: `five-${suffix}`, workflowIds: ids.slice(0, 2) }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/exists: pick another name, or overwrite it/);
    const kept = await json<{ datasets: { name: string; cases: number }[] }>("/api/datasets");
    expect(kept.datasets).toContainEqual(expect.objectContaining({ name: `five-${suffix}`, cases: 5 }));
    const replaced = await post<DatasetResponse>("/api/datasets", {
      name: `five-${suffix}`,
      workflowIds: ids,
      overwrite: true,
    });
    expect(replaced.cases).toBe(5);

    const first = await post<{ id: string }>("/api/evals", { dataset: `five-${suffix}`, agent: coach.name });
    const progress = await evalDone(first.id);
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ done: true, total: 5, finished: 5, reportUrl: `/api/reports/${first.id}` });
    expect(last.error).toBeUndefined();
    const report = await api(last.reportUrl!);
    expect(report.headers.get("content-type")).toMatch(/text\/html/);
    expect(await report.text()).toContain(`Eval report: ${coach.name}`);

    const second = await post<{ id: string }>("/api/evals", { dataset: `five-${suffix}`, agent: coach.name });
    await evalDone(second.id);
    const comparison = await json<CompareResponse>(`/api/compare?a=${first.id}&b=${second.id}`);
    expect(comparison).toMatchObject({ a: first.id, b: second.id, regressions: [], fixes: [] });
    expect(comparison.unchanged).toHaveLength(5);
    expect(comparison.scorers.map((s) => s.scorer).sort()).toEqual([
      "changeClaimedWithoutToolCall",
      "requiredToolCalled",
    ]);
    expect(comparison.scorers[0]!.baseline.interval).toBeDefined();
    // Headed by what each eval ran, not by its id alone.
    for (const [side, id] of [
      ["a", first.id],
      ["b", second.id],
    ] as const)
      expect(comparison.headings[side]).toEqual({
        id,
        dataset: `five-${suffix}`,
        agent: coach.name,
        agentVersion: coach.version,
        startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });

    // The evals' runs are hidden from the runs list unless asked for.
    const shown = await runsUntil(`/api/runs?agent=${coach.name}&evals=show&pageSize=100`, (page) =>
      page.runs.some((r) => r.eval),
    );
    expect(shown.runs.filter((r) => r.eval).every((r) => r.workflowId.startsWith("durable-agent-eval-"))).toBe(true);
    const hidden = await json<RunsResponse>(`/api/runs?agent=${coach.name}&pageSize=100`);
    expect(hidden.runs.some((r) => r.eval || r.workflowId.startsWith("durable-agent-eval-"))).toBe(false);
    expect(hidden.runs.map((r) => r.workflowId)).toEqual(expect.arrayContaining(ids));
  });

  it("a dataset needs runs and a usable name", async () => {
    expect(
      (await api("/api/datasets", { method: "POST", body: JSON.stringify({ name: "../x", workflowIds: ["a"] }) }))
        .status,
    ).toBe(400);
    expect((await api("/api/datasets", { method: "POST", body: JSON.stringify({ name: "empty" }) })).status).toBe(400);
  });
});

describe("encrypted runs", () => {
  it("are shown as encrypted, with no content, without the codec; and read in full with it", async () => {
    const dataConverter = encryptedDataConverter(keyring({ k1: newKey() }, "k1"));
    const encryptedClient = new Client({ connection: harness.client.connection, dataConverter });
    const secretQueue = taskQueue();
    const secretWorker = await testWorker(harness, [other], { taskQueue: secretQueue, dataConverter });
    const secretRunning = secretWorker.run();
    const result = await other.run("Swap squats for secret-lunges", {
      client: encryptedClient,
      taskQueue: secretQueue,
    });
    // A session with an owner has an encrypted memo: its row still lists, marked encrypted.
    const session = other.session(randomUUID(), { client: encryptedClient, taskQueue: secretQueue, owner: "carol" });
    await session.send("Hi there", { by: "carol" });
    await session.end();
    secretWorker.shutdown();
    await secretRunning;
    const rows = await runsUntil(
      `/api/runs?query=${encodeURIComponent(`WorkflowId = '${session.workflowId}'`)}`,
      (page) => page.runs.some((r) => r.status === "completed"),
    );
    expect(rows.runs[0]).toMatchObject({ workflowId: session.workflowId, session: true, encrypted: true });
    const blind = await json<RunView>(`/api/runs/${result.workflowId}`);
    expect(blind).toMatchObject({ encrypted: true, items: [], trips: [] });
    expect(JSON.stringify(blind)).not.toContain("secret-lunges");
    const keyed = await ai.studio({ client: encryptedClient, port: 0, token: TOKEN });
    try {
      const view = await json<RunView>(`/api/runs/${result.workflowId}`, {}, keyed);
      expect(view.encrypted).toBe(false);
      expect(view.items[0]).toEqual({ type: "user", text: "Swap squats for secret-lunges" });
    } finally {
      await keyed.close();
    }
  });
});

describe("issue 41: a failed run, a session's and a sub-agent's figures, runs without search attributes", () => {
  const parent = `studio-parent-${suffix}`;
  const child = `studio-child-${suffix}`;
  const chatty = `studio-chatty-${suffix}`;
  const failing = `studio-failing-${suffix}`;
  const plain = `studio-plain-${suffix}`;
  let scripted: ScriptedModel;
  let agents: Record<string, Agent>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    scripted = await startScriptedModel(
      byAgent({
        [parent]: [{ toolCalls: [ask(child, "Plan legs")] }, "Planned."],
        [child]: ["Legs: squats and lunges."],
        [chatty]: ["Hi!", "Squats work your legs.", "Bye!"],
        [failing]: [
          {
            status: 404,
            body: { error: { message: "The model gpt-missing does not exist", type: "invalid_request_error" } },
          },
        ],
        [plain]: ["Swapped in your head, at least."],
      }),
      { usage: usageByAgent({ [parent]: 1000, [child]: 500, [chatty]: 400, [plain]: 100 }) },
    );
    const pricing = { pricing: { inputPerMillion: 3, outputPerMillion: 15 } };
    const agent = (name: string, options: Omit<AgentOptions, "model" | "name"> = {}) =>
      ai.agent({
        name,
        instructions: instructionsOf(name),
        model: ai.openai("gpt-test", { baseURL: scripted.baseURL, ...pricing }),
        ...options,
      });
    const childAgent = agent(child);
    agents = {
      parent: agent(parent, { tools: [childAgent.asTool()] }),
      chatty: agent(chatty),
      failing: agent(failing),
      plain: agent(plain),
    };
    const options = { client: harness.client };
    await withWorker(
      harness,
      [agents.parent!, agents.chatty!, agents.failing!],
      async ({ taskQueue }) => {
        ids.parent = (await agents.parent!.run("Plan my legs", { ...options, taskQueue })).workflowId;
        const failed = await agents.failing!.start("Plan my arms", { ...options, taskQueue });
        ids.failing = failed.workflowId;
        await failed.result().catch(() => undefined);
        const session = agents.chatty!.session(randomUUID(), { ...options, taskQueue });
        for (const text of ["Hello", "What do squats do?", "Thanks"]) await session.send(text);
        await session.end();
        ids.session = session.workflowId;
      },
      { searchAttributes: true },
    );
    // A worker without search attributes: its runs have no DurableAgentName.
    await withWorker(harness, [agents.plain!], async ({ taskQueue }) => {
      ids.plain = (await agents.plain!.run("Swap squats for lunges, please", { ...options, taskQueue })).workflowId;
    });
  });

  afterAll(() => scripted?.close());

  const rowOf = (id: string) =>
    runsUntil(`/api/runs?query=${encodeURIComponent(`WorkflowId = '${id}'`)}`, (page) =>
      page.runs.some((r) => r.status !== "running"),
    ).then((page) => page.runs[0]!);

  it("a failed run's view and page carry its error: the typed error's name and message", async () => {
    const view = await json<RunView>(`/api/runs/${ids.failing}`);
    expect(view.status).toBe("failed");
    expect(view.error).toEqual({
      type: "ModelApiError",
      message: expect.stringContaining("gpt-missing does not exist"),
    });
    const ok = await json<RunView>(`/api/runs/${ids.parent}`);
    expect(ok.error).toBeUndefined();
  });

  it("a run's totals count its sub-agent's tokens, as its list row does", async () => {
    const row = await rowOf(ids.parent!);
    const view = await json<RunView>(`/api/runs/${ids.parent}`);
    // two parent trips of 1,000 tokens and the child's one of 500
    expect(row.tokens).toBe(2500);
    expect(view.totals).toEqual({ trips: 2, tokens: 2500, cost: expect.closeTo(row.cost!, 10) });
    expect(view.trips.reduce((sum, t) => sum + (t.tokens ?? 0), 0)).toBe(2000);
  });

  it("a session's figures are summed across its messages, as its list row says, and its trips are listed", async () => {
    const view = await json<RunView>(`/api/runs/${ids.session}`);
    expect(view.trips.map((t) => t.trip)).toEqual([1, 2, 3]);
    expect(view.trips.every((t) => t.tokens === 400 && (t.modelLatencyMs ?? -1) >= 0)).toBe(true);
    expect(view.totals).toEqual({ trips: 3, tokens: 1200, cost: expect.any(Number) });
    const row = await rowOf(ids.session!);
    expect(row).toMatchObject({ session: true, trips: 3, tokens: 1200 });
    expect(view.totals.cost).toBeCloseTo(row.cost!, 10);
  });

  it("a run from a worker without search attributes lists under its agent's name (from its input), and the agent filter finds it", async () => {
    const row = await rowOf(ids.plain!);
    expect(row).toMatchObject({ agent: plain, firstWords: "Swap squats for lunges, please" });
    expect(row.trips).toBeUndefined();
    const filtered = await json<RunsResponse>(`/api/runs?agent=${plain}`);
    expect(filtered.runs.map((r) => r.workflowId)).toEqual([ids.plain]);
    const others = await json<RunsResponse>(`/api/runs?agent=${parent}`);
    expect(others.runs.map((r) => r.workflowId)).toEqual([ids.parent]);
    expect((await json<RunView>(`/api/runs/${ids.plain}`)).agent).toBe(plain);
  });
});
