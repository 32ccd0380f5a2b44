/**
 * Faults of production on the production topology (`npm run test:stack`): temporal-server 1.31 on
 * PostgreSQL with frontend, history, matching and worker in processes of their own, and two
 * durable-agent worker processes (src/worker-main.ts) serving test/stack/fault-agents.ts. Each test
 * holds a run in its tool call, breaks something, lets the tool finish, and checks that the run
 * completes, every completed model call ran once, effects happened once and the stream is whole.
 * Then memory on the stack's PostgreSQL (its memory database, exact search without pgvector): one
 * run tells a fact, the next run of that user gets it recalled, and after a forget nothing is.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startStack, type Stack } from "../../deploy/stack/index.js";
import { findFreeFrontendPort, findFreePort } from "../../deploy/stack/processes.js";
import type { RunResult, StreamedRunEvent } from "../../src/index.js";
import {
  startScriptedEmbeddings,
  startScriptedModel,
  type ScriptedEmbeddings,
  type ScriptedModel,
  type ScriptedRequest,
} from "../../src/testing/index.js";
import { runMain } from "../support/cli-helpers.js";
import { faultCoach, memoryCoach } from "./fault-agents.js";

const QUEUE = "stack-faults";
const dir = mkdtempSync(join(tmpdir(), "durable-agent-stack-faults-"));
chmodSync(dir, 0o755); // PostgreSQL runs as its own user under root
const TOOL_LOG = join(dir, "tool.log");
const EFFECTS_LOG = join(dir, "effects.log");

/** Holds each case's tool call until the test releases it; later attempts of a released case pass. */
function startGate() {
  const arrived = new Map<string, () => void>();
  const arrivals = new Map<string, Promise<void>>();
  const held = new Map<string, ServerResponse[]>();
  const released = new Set<string>();
  const arrival = (id: string) => {
    if (!arrivals.has(id)) arrivals.set(id, new Promise((resolve) => arrived.set(id, resolve)));
    return arrivals.get(id)!;
  };
  const server = createServer((req, res) => {
    const id = decodeURIComponent(req.url!.slice(1));
    void arrival(id);
    arrived.get(id)!();
    if (released.has(id)) res.end("go");
    else held.set(id, [...(held.get(id) ?? []), res]);
  });
  return new Promise<{
    url: string;
    arrival: (id: string) => Promise<void>;
    release: (id: string) => void;
    close: () => void;
  }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        arrival,
        release: (id) => {
          released.add(id);
          for (const res of held.get(id) ?? []) res.end("go");
        },
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

const caseOf = (request: ScriptedRequest) => /case (\w+)/.exec(JSON.stringify(request.body.messages))?.[1] ?? "?";
const replyFor = (id: string) => `Done: case ${id}, squats are now lunges. Take care of that knee.`;

let stack: Stack;
let model: ScriptedModel;
let embeddings: ScriptedEmbeddings;
let gate: Awaited<ReturnType<typeof startGate>>;
let connection: Connection;
let client: Client;
const figures: string[] = [];

beforeAll(async () => {
  gate = await startGate();
  embeddings = await startScriptedEmbeddings();
  model = await startScriptedModel((request) => {
    if (JSON.stringify(request.body.messages).includes("a coach who remembers")) return "Noted.";
    const id = caseOf(request);
    const toolResults = request.body.messages.filter((m) => m.role === "tool").length;
    return toolResults === 0
      ? { toolCalls: [{ name: "update_plan", arguments: { case: id, from: "squats", to: "lunges" } }] }
      : replyFor(id);
  });
  const started = performance.now();
  stack = await startStack({
    dataDir: join(dir, "stack"),
    split: true,
    workers: 2,
    port: await findFreeFrontendPort(),
    postgresPort: await findFreePort(),
    uiPort: false,
    agentsModule: join(import.meta.dirname, "fault-agents.ts"),
    workerEnv: {
      TEMPORAL_TASK_QUEUE: QUEUE,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: "test",
      TOOL_LOG,
      EFFECTS_LOG,
      GATE_URL: gate.url,
      EMBEDDINGS_URL: embeddings.baseURL,
    },
  });
  figures.push(
    `stand-up ${((performance.now() - started) / 1000).toFixed(1)} s (${Object.entries(stack.timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")})`,
  );
  connection = await Connection.connect({ address: stack.address });
  client = new Client({ connection, namespace: stack.namespace });
}, 900_000);

afterAll(async () => {
  await connection?.close();
  await stack?.stop();
  await model?.close();
  await embeddings?.close();
  gate?.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`stack faults:\n  ${figures.join("\n  ")}`);
});

async function collect(stream: AsyncIterable<StreamedRunEvent>): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const linesOf = (path: string) => readFileSync(path, "utf8").trim().split("\n");
const toolLines = (id: string) => linesOf(TOOL_LOG).filter((line) => line.startsWith(`${id} `));

/**
 * Starts a run of case `id`, waits until its tool call is in flight, runs `during` (the fault),
 * lets the tool finish, runs `after` (the recovery) and returns the run's result and stream.
 */
async function runThroughFault(id: string, during: () => Promise<void>, after: () => Promise<void> = async () => {}) {
  const handle = await faultCoach.start(`case ${id}: my knee hurt during squats, swap them for lunges`, {
    client,
    taskQueue: QUEUE,
  });
  const streamed = collect(handle.stream());
  await gate.arrival(id);
  const faultAt = performance.now();
  await during();
  gate.release(id);
  await after();
  const downFor = performance.now() - faultAt;
  const result = await handle.result();
  const attempts = toolLines(id).filter((line) => line.includes(" started ")).length;
  figures.push(
    `${id}: down ${(downFor / 1000).toFixed(1)} s; fault to completed run ${((performance.now() - faultAt) / 1000).toFixed(1)} s; tool attempts ${attempts}`,
  );
  return { result, events: await streamed, history: await handle.workflow.fetchHistory() };
}

type Outcome = Awaited<ReturnType<typeof runThroughFault>>;

function expectSurvived(id: string, { result, events, history }: Outcome) {
  const reply = replyFor(id);
  expect(result).toMatchObject({ reply, stopReason: "answered", trips: 2 });
  expect(result.toolCalls).toMatchObject([
    { name: "update_plan", status: "ok", output: { ok: true, swapped: { from: "squats", to: "lunges" } } },
  ]);
  // Each model call ran once: the one before the fault is not repeated, the one after ran once.
  expect(model.requests.filter((r) => caseOf(r) === id)).toHaveLength(2);
  const completed = (type: string) =>
    history.events!.filter(
      (e) =>
        e.activityTaskCompletedEventAttributes &&
        history.events!.find(
          (s) => Number(s.eventId) === Number(e.activityTaskCompletedEventAttributes!.scheduledEventId),
        )?.activityTaskScheduledEventAttributes?.activityType?.name === type,
    );
  expect(completed("model.call")).toHaveLength(2);
  // The backstop's effect and the tool's effect, once each, under their idempotency keys.
  expect(linesOf(EFFECTS_LOG).filter((line) => line.startsWith(`${result.workflowId}/`))).toEqual([
    `${result.workflowId}/backstop/injury-capture injury: case ${id}: my knee hurt during squats, swap them for lunges`,
    expect.stringMatching(new RegExp(`^${result.workflowId}/trip-1/\\S+ ${id} swapped squats for lunges$`)),
  ]);
  // The stream is whole: every offset once, in order, one tool call, the answer's text, the result.
  expect(events.map((e) => e.offset)).toEqual(events.map((_e, i) => i));
  expect(events.filter((e) => e.type === "trip.started")).toHaveLength(2);
  expect(events.filter((e) => e.type === "tool.started")).toHaveLength(1);
  expect(events.filter((e) => e.type === "tool.finished")).toMatchObject([{ status: "ok" }]);
  expect(
    events
      .filter((e): e is Extract<StreamedRunEvent, { type: "text.delta" }> => e.type === "text.delta" && e.trip === 2)
      .map((e) => e.text)
      .join(""),
  ).toBe(reply);
  const finished = events.at(-1)!;
  expect(finished.type).toBe("run.finished");
  expect((finished as { result: RunResult }).result.reply).toBe(reply);
}

it("the history service SIGKILLed mid tool call: the run completes once it is back", async () => {
  const history = stack.server.process("history");
  const outcome = await runThroughFault(
    "history",
    () => history.stop("SIGKILL"),
    () => stack.server.startService("history"),
  );
  expectSurvived("history", outcome);
  expect(toolLines("history").filter((l) => l.includes(" started "))[0]).toMatch(/^history started 1 /);
}, 300_000);

it("the whole server SIGTERMed mid-run and started again: the run completes", async () => {
  const outcome = await runThroughFault(
    "server",
    () => stack.server.stop("SIGTERM"),
    () => stack.server.start(),
  );
  expectSurvived("server", outcome);
}, 300_000);

it("PostgreSQL restarted mid-run (stopped while the tool finishes, then started): the run completes", async () => {
  const outcome = await runThroughFault(
    "postgres",
    async () => stack.postgres.stop(),
    async () => stack.postgres.start(),
  );
  expectSurvived("postgres", outcome);
}, 300_000);

it("one of two worker processes SIGKILLed mid tool call: the other finishes the run, the tool's effect once", async () => {
  let killedPid = 0;
  const outcome = await runThroughFault("worker", async () => {
    killedPid = Number(toolLines("worker")[0]!.split(" ").at(-1));
    const worker = stack.workers.find((w) => w.pid === killedPid)!;
    await worker.stop("SIGKILL");
  });
  expectSurvived("worker", outcome);
  const lines = toolLines("worker");
  expect(lines[0]).toBe(`worker started 1 ${killedPid}`);
  const survivor = stack.workers.find((w) => w.running)!.pid;
  expect(lines.slice(1)).toEqual([`worker started 2 ${survivor}`, `worker completed 2 ${survivor}`]);
}, 300_000);

it("memory on the stack's PostgreSQL: a user's fact told in one run is recalled in the next, and nothing after a forget", async () => {
  // The workers said which search they use when they opened the store, as the stand-up did.
  const search = stack.memory.search === "pgvector" ? "pgvector search" : "exact search";
  expect(readFileSync(join(stack.logDir, "worker-1.log"), "utf8")).toContain(`postgres store at `);
  expect(readFileSync(join(stack.logDir, "worker-1.log"), "utf8")).toContain(search);
  const options = { client, taskQueue: QUEUE, user: "stack-alice" };
  /** The model request whose last message is `input` (each run here has one trip). */
  const requestFor = (input: string) =>
    JSON.stringify(model.requests.find((r) => r.body.messages.at(-1)?.content === input)?.body.messages);
  const told = await memoryCoach.run("My left knee hurts after long runs.", options);
  await memoryCoach.run("Plan my leg day.", options);
  expect(requestFor("Plan my leg day.")).toContain(
    "Recalled messages from earlier conversations (recalled, not said in this conversation)",
  );
  expect(requestFor("Plan my leg day.")).toContain("My left knee hurts after long runs.");
  const forgot = await runMain(["memory", "forget", "--user", "stack-alice", "--postgres", stack.memory.url]);
  expect(forgot).toMatchObject({ code: 0, stdout: "Forgot user stack-alice: 4 message(s), no working memory." });
  await memoryCoach.run("Plan my arm day.", options);
  expect(requestFor("Plan my arm day.")).toBeDefined();
  expect(requestFor("Plan my arm day.")).not.toContain("knee");
  expect(told.reply).toBe("Noted.");
});
