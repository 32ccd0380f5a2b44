/**
 * Issue 41, "bad input": the studio's and the chat's routes asked, over real HTTP, with a seeded
 * list of malformed paths, ids, queries and bodies (broken percent-encodings, ids past every
 * limit, control characters, bodies that are not JSON or not the shape asked for, deep nesting).
 * Every answer is a 4xx with a JSON error (a filter that is odd but well-formed may find nothing,
 * with 200), never a 500, and the servers stay up.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ai, createChatHandler, type Agent } from "../src/index.js";
import type { StudioServer } from "../src/studio/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { prng } from "./support/fuzz-cases.js";
import { serveChat, type ChatHttpServer } from "./support/chat-http-server.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import type { Worker } from "@temporalio/worker";

const SEED = 20261206;
const PER_ROUTE = 8;

/** Path segments a client should never send, already as they go on the wire. */
const HOSTILE_SEGMENTS = [
  "%",
  "%E0%A4%A",
  "%ZZ",
  "%C0%AF",
  "%FF%FE",
  "%00",
  "a%00b",
  "%0A%0D",
  "..",
  "%2E%2E%2F%2E%2E",
  "%2F",
  "x".repeat(5_000),
  "%F0%9F%98",
  encodeURIComponent("<script>alert(1)</script>"),
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent("🙂".repeat(300)),
  "%25",
  "%u0041",
];

/** Bodies that are not what a route asks for. */
const HOSTILE_BODIES = [
  "",
  "not json",
  "{",
  "null",
  "[]",
  "123",
  '"a string"',
  "true",
  '{"decision":1}',
  '{"atTrip":"two","agent":[]}',
  '{"name":{"$gt":""},"workflowIds":"all"}',
  '{"dataset":null,"agent":{}}',
  '{"atTrip":1,"agent":"fuzz-routes","instructions":5,"modelSettings":[1]}',
  '{"atTrip":1,"agent":"fuzz-routes","modelSettings":{"temperature":"hot"},"model":""}',
  '{"__proto__":{"polluted":true}}',
  "[".repeat(20_000) + "]".repeat(20_000),
  JSON.stringify({ id: "x".repeat(10_000), messages: [], trigger: "submit-message" }),
  JSON.stringify({ id: "c", messages: [{ id: 1, role: "robot", parts: "none" }], trigger: "submit-message" }),
  JSON.stringify({ id: "c", messages: [{ id: "m", role: "user", parts: [{ type: "text", text: 5 }] }] }),
  JSON.stringify({
    id: "c\u0000",
    messages: [{ id: "m", role: "user", parts: [{ type: "text", text: "hi" }] }],
    trigger: "submit-message",
  }),
];

/** Queries for the runs list and the comparison. */
const HOSTILE_QUERIES = [
  "pageSize=-1",
  "pageSize=abc",
  "pageSize=1e9",
  "pageToken=%%%",
  "pageToken=bm90LWEtdG9rZW4",
  "fired=sometimes",
  "status=exploded",
  "query=" + encodeURIComponent("WorkflowId = "),
  "query=" + encodeURIComponent("DROP TABLE runs"),
  "agent=" + encodeURIComponent("'\"\\"),
  "a=%E0%A4%A&b=",
  "a=../../etc/passwd&b=x",
];

/** A request; `mayPass` for one that is odd but well-formed (an unknown filter), which may also be answered 200. */
type Ask = { method: string; path: string; body?: string; mayPass?: boolean };

let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let running: Promise<void>;
let agent: Agent;
let studio: StudioServer;
let chat: ChatHttpServer;
const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(() => "Fine.");
  agent = ai.agent({ name: "fuzz-routes", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  const queue = taskQueue();
  worker = await testWorker(harness, [agent], { taskQueue: queue });
  running = worker.run();
  const assetsDir = mkdtempSync(join(tmpdir(), "fuzz-page-"));
  writeFileSync(join(assetsDir, "index.html"), "<!doctype html><title>studio</title>");
  studio = await ai.studio({
    client: harness.client,
    agents: [agent],
    taskQueue: queue,
    port: 0,
    assetsDir,
    dataDir: mkdtempSync(join(tmpdir(), "fuzz-data-")),
  });
  chat = await serveChat(
    createChatHandler({ agent, client: harness.client, taskQueue: queue, authorize: () => ({ by: "alice" }) }),
  );
});

afterAll(async () => {
  await chat?.close();
  await studio?.close();
  worker?.shutdown();
  await running;
  await model?.close();
  await harness?.close();
});

/** The studio's routes, each with seeded hostile ids, queries and bodies. */
function studioAsks(): Ask[] {
  const asks: Ask[] = [];
  const id = () => pick(HOSTILE_SEGMENTS);
  for (let i = 0; i < PER_ROUTE; i++) {
    asks.push(
      { method: "GET", path: `/api/runs/${id()}` },
      { method: "GET", path: `/api/runs/${id()}?runId=${id()}` },
      { method: "GET", path: `/api/runs/${id()}/stream?after=${id()}` },
      { method: "POST", path: `/api/runs/${id()}/approvals/${id()}`, body: pick(HOSTILE_BODIES) },
      { method: "POST", path: `/api/runs/${id()}/approvals/${id()}`, body: '{"decision":"approve"}' },
      { method: "POST", path: `/api/runs/${id()}/cancel`, body: "{}" },
      { method: "POST", path: `/api/runs/${id()}/fork`, body: pick(HOSTILE_BODIES) },
      { method: "POST", path: "/api/datasets", body: pick(HOSTILE_BODIES) },
      { method: "POST", path: "/api/evals", body: pick(HOSTILE_BODIES) },
      { method: "GET", path: `/api/evals/${id()}` },
      { method: "GET", path: `/api/reports/${id()}` },
      { method: "GET", path: `/api/runs?${pick(HOSTILE_QUERIES)}`, mayPass: true },
      { method: "GET", path: `/api/compare?${pick(HOSTILE_QUERIES)}` },
      { method: pick(["PUT", "DELETE", "PATCH"]), path: `/api/runs/${id()}`, body: "{}" },
      // The chat panel's routes: the agent's chat handler under /api/chat/<agent>, and agents the module has not.
      { method: "POST", path: "/api/chat/fuzz-routes", body: pick(HOSTILE_BODIES) },
      { method: "POST", path: `/api/chat/${pick(HOSTILE_SEGMENTS)}`, body: pick(HOSTILE_BODIES) },
      { method: "GET", path: `/api/chat/fuzz-routes/${pick(HOSTILE_SEGMENTS)}/stream?messages` },
      { method: "DELETE", path: `/api/chat/fuzz-routes/${pick(HOSTILE_SEGMENTS)}/stream` },
    );
  }
  return asks;
}

/** The chat's routes, each with seeded hostile chat ids and bodies. */
function chatAsks(): Ask[] {
  const asks: Ask[] = [];
  for (let i = 0; i < PER_ROUTE; i++) {
    asks.push(
      { method: "POST", path: "/api/chat", body: pick(HOSTILE_BODIES) },
      { method: "GET", path: `/api/chat/${pick(HOSTILE_SEGMENTS)}/stream` },
      { method: "GET", path: `/api/chat/${pick(HOSTILE_SEGMENTS)}/stream?messages` },
      { method: "DELETE", path: `/api/chat/${pick(HOSTILE_SEGMENTS)}/stream` },
      // A GET of any path but a chat's stream is the chat list (GET {api}): a caller's list, or a 4xx.
      { method: "GET", path: `/api/chat/${pick(HOSTILE_SEGMENTS)}/${pick(HOSTILE_SEGMENTS)}`, mayPass: true },
    );
  }
  return asks;
}

async function answer(base: string, ask: Ask): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(`${base}${ask.path}`, {
    method: ask.method,
    ...(ask.body !== undefined ? { body: ask.body, headers: { "content-type": "application/json" } } : {}),
  });
  return { status: response.status, type: response.headers.get("content-type") ?? "", body: await response.text() };
}

function expectJsonClientError(ask: Ask, got: { status: number; type: string; body: string }): void {
  const label = `${ask.method} ${ask.path.slice(0, 120)} ${String(ask.body).slice(0, 60)} → ${got.status} ${got.body.slice(0, 200)}`;
  expect((got.status >= 400 && got.status < 500) || (ask.mayPass === true && got.status === 200), label).toBe(true);
  expect(got.type, label).toMatch(/application\/json/);
  const parsed = JSON.parse(got.body) as { error?: unknown };
  if (got.status !== 200) expect(parsed.error, label).toBeTruthy();
}

describe("malformed requests to the HTTP routes (seeded fuzz)", () => {
  it(`the studio: ${PER_ROUTE * 18} malformed requests, each a 4xx with a JSON error; the studio still answers`, async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const base = `http://127.0.0.1:${studio.port}`;
      for (const ask of studioAsks()) expectJsonClientError(ask, await answer(base, ask));
      expect(logged).not.toHaveBeenCalled(); // nothing reached the error log: every one was a request error
    } finally {
      logged.mockRestore();
    }
    expect((await fetch(`http://127.0.0.1:${studio.port}/api/meta`)).status).toBe(200);
  });

  it(`the chat: ${PER_ROUTE * 5} malformed requests, each a 4xx with a JSON error; the chat still answers`, async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      for (const ask of chatAsks()) expectJsonClientError(ask, await answer(chat.url, ask));
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
    const fine = await fetch(`${chat.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: `fuzz-${Date.now()}`,
        messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "Hi" }] }],
        trigger: "submit-message",
      }),
    });
    expect(fine.status).toBe(200);
    expect(await fine.text()).toContain("Fine.");
  });
});
