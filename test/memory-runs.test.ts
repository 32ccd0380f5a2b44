/**
 * Memory across sessions, with real parts: the suite's Temporal dev server, the scripted model and
 * embeddings servers, PGlite with pgvector (in-process, and served over the wire by pglite-socket
 * for the crash test's worker process).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { z } from "zod";
import { ai, InvalidUserError, ModelApiError, type RunResult, type TraceEvent } from "../src/index.js";
import {
  startScriptedEmbeddings,
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
} from "../src/testing/index.js";
import { updateWorkingMemory } from "../src/memory/index.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { conversationOf } from "../src/studio/server/conversation.js";
import type { Worker } from "@temporalio/worker";
import type { ScriptedEmbeddings } from "../src/testing/index.js";

let harness: Harness;
let model: ScriptedModel;
let embeddings: ScriptedEmbeddings;
let worker: Worker;
let running: Promise<void>;
const queue = taskQueue();
const children: ChildProcess[] = [];
const store = ai.memory.pglite({ log: () => {} });

/** The model: calls `update_working_memory` with the JSON after `[wm:` in the input, else answers with the input's start. */
function answer(request: ScriptedRequest) {
  const last = request.body.messages.at(-1);
  if (last?.role === "tool") return "Noted.";
  const text = String(last?.content ?? "");
  const wm = /\[wm:([\s\S]*)\]$/.exec(text);
  if (wm)
    return { toolCalls: [{ name: "update_working_memory", arguments: { memory: JSON.parse(wm[1]!) as unknown } }] };
  return `Answered: ${text.slice(0, 60)}`;
}

const embedder = () => createOpenAI({ baseURL: embeddings.baseURL, apiKey: "test" }).embeddingModel("embed-test");
let coach: ReturnType<typeof ai.agent>;
let typedCoach: ReturnType<typeof ai.agent>;

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(answer);
  embeddings = await startScriptedEmbeddings();
  const gpt = ai.openai("gpt-test", { baseURL: model.baseURL });
  coach = ai.agent({
    name: "memory-coach",
    model: gpt,
    memory: ai.memory({
      store,
      embedder: embedder(),
      workingMemory: { template: "# Profile\n- Injuries:\n- Goals:" },
      recall: { topK: 1, messageRange: 1 },
    }),
  });
  typedCoach = ai.agent({
    name: "memory-typed-coach",
    model: gpt,
    memory: ai.memory({
      store,
      embedder: embedder(),
      workingMemory: { schema: z.object({ injuries: z.array(z.string()) }) },
    }),
  });
  worker = await testWorker(harness, [coach, typedCoach], { taskQueue: queue }); // opens the store (PGlite) before it polls
  running = worker.run();
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  worker?.shutdown();
  await running;
  await Promise.all([model?.close(), embeddings?.close(), store.close()]);
  await harness?.close();
});

const run = (agent: typeof coach, input: string, user?: string) =>
  agent.run(input, { client: harness.client, taskQueue: queue, ...(user ? { user } : {}) });

/** The system message that gave memory to the model in the request whose last message is `input`. */
function memoryMessageFor(input: string): string | undefined {
  const request = model.requests.find((r) => r.body.messages.some((m) => m.role === "user" && m.content === input));
  expect(request, `a model request for "${input}"`).toBeDefined();
  return request!.body.messages.find((m) => m.role === "system" && String(m.content).startsWith("Memory of this user"))
    ?.content as string | undefined;
}

const recalledOf = (result: RunResult) =>
  result.trace.find((e): e is Extract<TraceEvent, { type: "memory.recalled" }> => e.type === "memory.recalled");

async function activityTypes(workflowId: string): Promise<string[]> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

describe("recall across sessions", () => {
  let second: RunResult;

  it("alice's second session gets her first session's fact recalled in its model request; bob's request at the same moment does not", async () => {
    const first = await run(coach, "My left knee is injured from running downhill.", "alice");
    expect(recalledOf(first)?.recalled).toEqual([]); // nothing stored yet
    const [alice, bob] = await Promise.all([
      run(coach, "Plan a leg day that spares my injured knee (alice).", "alice"),
      run(coach, "Plan a leg day that spares my injured knee (bob).", "bob"),
    ]);
    second = alice;
    // The studio shows, where the system message is, what memory gave the model.
    const items = conversationOf(alice.workflowId, alice.messages, alice.toolCalls, alice.trace, {
      model: new Map(),
      tools: new Map(),
    });
    expect(items[0]).toMatchObject({ type: "memory", workingMemory: "# Profile\n- Injuries:\n- Goals:" });
    expect(items[0]!.type === "memory" && items[0]!.recalled.map((m) => m.text)).toContain(
      "My left knee is injured from running downhill.",
    );
    expect(items[1]).toEqual({ type: "user", text: "Plan a leg day that spares my injured knee (alice)." });
    const recalled = memoryMessageFor("Plan a leg day that spares my injured knee (alice).");
    expect(recalled).toContain("Recalled messages from earlier conversations");
    expect(recalled).toContain("user: My left knee is injured from running downhill.");
    expect(recalledOf(alice)?.recalled.map((m) => m.run)).toContain(first.workflowId);
    expect(memoryMessageFor("Plan a leg day that spares my injured knee (bob).") ?? "").not.toContain("left knee");
    expect(recalledOf(bob)?.recalled).toEqual([]);
    // Each run's messages were stored once, under alice and bob.
    const stored = await store.inspect("alice");
    expect(stored.messages.filter((m) => m.run === first.workflowId).map((m) => [m.index, m.role])).toEqual([
      [1, "user"],
      [2, "assistant"],
    ]);
  });

  it("a fork of session 2 at trip 1 sees the same recall, with no store call", async () => {
    const embedded = embeddings.requests.length;
    const fork = await ai.fork(second.workflowId, { atTrip: 1, client: harness.client, taskQueue: queue });
    const forked = await fork.result();
    const requests = model.requests.filter((r) =>
      r.body.messages.some((m) => m.content === "Plan a leg day that spares my injured knee (alice)."),
    );
    expect(requests).toHaveLength(2); // the run's and the fork's
    const system = (r: ScriptedRequest) =>
      r.body.messages.find((m) => m.role === "system" && String(m.content).startsWith("Memory"));
    expect(system(requests[1]!)).toEqual(system(requests[0]!));
    expect(await activityTypes(forked.workflowId)).toEqual(["model.call"]);
    expect(embeddings.requests.length).toBe(embedded);
  });

  it("a session of alice recalls her runs; its messages are stored per turn; its history and the run's replay (fixtures)", async () => {
    const session = coach.session(`alice-${Date.now()}`, { client: harness.client, taskQueue: queue, user: "alice" });
    const first = await session.send("How should I warm up my injured knee?");
    expect(recalledOf(first)?.recalled.some((m) => m.text.includes("left knee is injured"))).toBe(true);
    await session.send("And after the session?");
    await session.end();
    const stored = (await store.inspect("alice")).messages.filter((m) => m.run === session.workflowId);
    expect(stored.map((m) => [m.turn, m.role])).toEqual([
      [0, "user"],
      [0, "assistant"],
      [1, "user"],
      [1, "assistant"],
    ]);
    await replaysAndKeeps({ workflow: harness.client.workflow.getHandle(session.workflowId) }, "memory-session");
    await replaysAndKeeps({ workflow: harness.client.workflow.getHandle(second.workflowId) }, "memory-recall");
  });

  it("forget: the next run of alice recalls nothing of her", async () => {
    await coach.options.memory!.forget({ user: "alice" });
    const after = await run(coach, "What do you know about my knee?", "alice");
    expect(recalledOf(after)?.recalled).toEqual([]);
    expect(memoryMessageFor("What do you know about my knee?") ?? "").not.toContain("left knee");
  });
});

describe("working memory", () => {
  it("the model updates it with update_working_memory, and the next run is given it with the instructions", async () => {
    const doc = "# Profile\n- Injuries: left knee\n- Goals: a 10k in spring";
    const first = await run(coach, `Remember this [wm:${JSON.stringify(doc)}]`, "dana");
    expect(first.toolCalls.map((c) => [c.name, c.status])).toEqual([["update_working_memory", "ok"]]);
    expect(memoryMessageFor(`Remember this [wm:${JSON.stringify(doc)}]`)).toContain("- Injuries:\n- Goals:"); // the template
    await run(coach, "Plan my week", "dana");
    expect(memoryMessageFor("Plan my week")).toContain(
      `Working memory (keep it current with the update_working_memory tool):\n${doc}`,
    );
    await replaysAndKeeps(
      { workflow: harness.client.workflow.getHandle(first.workflowId) },
      "memory-working-memory-tool",
    );
  });

  it("an update that fails the schema is a refused call with the reason, and the document is unchanged", async () => {
    const result = await run(typedCoach, `Note it [wm:${JSON.stringify({ injuries: "knee" })}]`, "erin");
    expect(result.toolCalls[0]).toMatchObject({ name: "update_working_memory", status: "refused" });
    expect(result.toolCalls[0]!.reason).toMatch(/injuries/);
    expect((await typedCoach.options.memory!.inspect({ user: "erin" })).workingMemory).toBeUndefined();
  });

  it("two sessions of one user updating it at once: both updates are kept (the second merged into the first), once per key", async () => {
    const memory = coach.options.memory!;
    const seen = { content: "# Profile\n- Injuries:\n- Goals:", version: 0 };
    const a = await updateWorkingMemory(memory, "fay", "# Profile\n- Injuries: left knee\n- Goals:", seen, "call-a");
    const b = await updateWorkingMemory(
      memory,
      "fay",
      "# Profile\n- Injuries:\n- Goals:\n- Diet: vegetarian",
      seen,
      "call-b",
    );
    expect([a.ok, b.ok]).toEqual([true, true]);
    const again = await updateWorkingMemory(
      memory,
      "fay",
      "# Profile\n- Injuries: left knee\n- Goals:",
      seen,
      "call-a",
    );
    expect(again).toMatchObject({ ok: true, version: (a as { version: number }).version }); // a retried call writes nothing
    const stored = (await memory.inspect({ user: "fay" })).workingMemory;
    expect(stored?.content).toBe("# Profile\n- Injuries: left knee\n- Goals:\n- Diet: vegetarian");
    expect(stored?.version).toBe(2);
  });
});

describe("whose memory, and bad input", () => {
  it("a user over 256 characters or with control characters is refused at the client; a run without a user warns once and has no memory", async () => {
    await expect(run(coach, "hi", "x".repeat(257))).rejects.toSatisfy(InvalidUserError.isInstance);
    await expect(run(coach, "hi", "eve\nmallory")).rejects.toThrow(/control characters/);
    const warnings: string[] = [];
    const options = { client: harness.client, taskQueue: queue, logger: { warn: (w: string) => warnings.push(w) } };
    const results = [await coach.run("No user here", options), await coach.run("Nor here", options)];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/has memory, but this run has no user/);
    expect(await activityTypes(results[0]!.workflowId)).toEqual(["model.call"]);
  });

  it("an embedder error is classified as model errors are: a 401 fails the run with ModelApiError", async () => {
    const failing = await startScriptedEmbeddings({
      fail: () => ({ status: 401, body: { error: { message: "bad key" } } }),
    });
    const agent = ai.agent({
      name: "memory-bad-embedder",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      memory: ai.memory({
        store,
        embedder: createOpenAI({ baseURL: failing.baseURL, apiKey: "x" }).embeddingModel("e"),
      }),
    });
    const q = taskQueue();
    const w = await testWorker(harness, [agent], { taskQueue: q });
    await w.runUntil(async () => {
      const error = await agent
        .run("hello", { client: harness.client, taskQueue: q, user: "gus" })
        .catch((e: unknown) => e);
      expect(ModelApiError.isInstance(error)).toBe(true);
      expect((error as ModelApiError).status).toBe(401);
    });
    await failing.close();
  });

  it("a store that cannot be reached fails the memory activity retryably, and the run waits", async () => {
    const port = await freePort();
    const agent = ai.agent({
      name: "memory-no-store",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      memory: ai.memory({
        store: ai.memory.postgres({ url: `postgres://x:y@127.0.0.1:${port}/db`, connectTimeoutMs: 500, log: () => {} }),
        embedder: embedder(),
      }),
    });
    const q = taskQueue();
    const w = await testWorker(harness, [agent], { taskQueue: q });
    await w.runUntil(async () => {
      const handle = await agent.start("hello", { client: harness.client, taskQueue: q, user: "hal" });
      let pending;
      do {
        await new Promise((resolve) => setTimeout(resolve, 300)); // polls Temporal's view of the retrying activity
        pending = (await handle.workflow.describe()).raw.pendingActivities?.[0];
      } while (!pending || (pending.attempt ?? 0) < 2);
      expect(pending.activityType?.name).toBe("memory.recall");
      expect(pending.lastFailure?.applicationFailureInfo?.type).toBe("MemoryStoreUnavailableError");
      expect((await handle.workflow.describe()).status.name).toBe("RUNNING");
      await handle.workflow.terminate("test done");
    });
  });
});

describe("a worker SIGKILLed inside memory.remember", () => {
  // Both kill points on one run (each kill costs a worker process's start, ~15 s here): the first worker is killed after
  // the embedder answered and before the write, the second (the retry's) after the write and before the activity completed,
  // the third completes it. Each stops at an event it prints (EMBEDDED, WRITTEN), never after a guessed delay.
  it("killed between the embedding and the write, then between the write and the completion: each message is stored once", async () => {
    const served = await servePGlite();
    const reader = ai.memory.postgres({ url: served.url, log: () => {} });
    const q = taskQueue();
    const markers = mkdtempSync(join(tmpdir(), "memory-crash-"));
    const env = {
      TEMPORAL_ADDRESS: harness.address,
      TEMPORAL_TASK_QUEUE: q,
      MODEL_URL: model.baseURL,
      EMBEDDINGS_URL: embeddings.baseURL,
      STORE_URL: served.url,
      WORKFLOW_BUNDLE: inject("workflowBundlePath"),
    };
    const crash = ai.agent({ name: "memory-crash-coach", model: ai.openai("gpt-test") });
    const first = startChild({ ...env, KILL_POINT: "before-write", MARKER: join(markers, "first") });
    await first.waitFor("READY");
    const handle = await crash.start("My right shoulder hurts when I press.", {
      client: harness.client,
      taskQueue: q,
      user: "ivy",
    });
    await first.waitFor("EMBEDDED");
    const remembered = (r: { input: string[] }) => r.input.includes("Answered: My right shoulder hurts when I press.");
    expect(embeddings.requests.filter(remembered)).toHaveLength(1); // the embedder had answered the turn's messages
    expect((await reader.inspect("ivy")).messages).toEqual([]); // and nothing was written
    first.child.kill("SIGKILL");
    const second = startChild({ ...env, KILL_POINT: "after-write", MARKER: join(markers, "second") });
    await second.waitFor("WRITTEN");
    second.child.kill("SIGKILL");
    const third = startChild({ ...env, MARKER: join(markers, "third") });
    await third.waitFor("READY");
    await handle.result();
    const stored = await reader.inspect("ivy");
    expect(stored.messages.map((m) => [m.run, m.index, m.role])).toEqual([
      [handle.workflowId, 0, "user"],
      [handle.workflowId, 1, "assistant"],
    ]);
    const rememberAttempts = (await handle.workflow.fetchHistory()).events?.flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
    );
    expect(Math.max(...(rememberAttempts ?? []))).toBeGreaterThanOrEqual(3); // retried on the second worker, then the third
    third.child.kill("SIGKILL");
    await reader.close();
    await served.stop();
  }, 180_000); // three worker processes start in turn: ~20 s on a quiet machine, over 60 s at a load of 15
});

function startChild(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=durable-agent-source", "test/fixtures/memory-crash-worker.ts"],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const seen = new Set<string>();
  const waiters = new Map<string, () => void>();
  lines.on("line", (line) => {
    seen.add(line);
    waiters.get(line)?.();
  });
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (seen.has(text)) return resolve();
      waiters.set(text, resolve);
      child.once("exit", (code) => reject(new Error(`worker exited (${code}) before printing ${text}`)));
    });
  return { child, waitFor };
}

async function servePGlite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create({ extensions: { vector } });
  const port = await freePort();
  const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 16 });
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
