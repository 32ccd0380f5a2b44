/**
 * One Temporal reader per run across processes (issue 33), on a real redis-server and real child
 * processes: the process holding the run's lease in Redis reads Temporal and publishes the durable
 * events it reads; the others follow them from Redis. Its death hands the lease over, Redis's
 * death sends every process back to Temporal, and no durable event is lost or repeated.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { startRedisServer, type RedisServer } from "../src/testing/redis-server.js";
import { connectCountedClient, type CallCounts } from "./support/counted-client.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { planAgent, UPDATE_PLAN_CALL } from "./support/plan-agent.js";
import { deferred } from "./support/ops-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const FIRST =
  "Lunges work the same muscles as squats with less load on the knees, and they train balance too. " +
  "Keep your front knee above the ankle and start with three sets of ten on each leg. I will swap them now.";
const SECOND = "Done: lunges are in your plan for leg day, three sets of ten on each leg.";
/** The prompt of a workflow id's second run. */
const SECOND_PROMPT = "Bring squats back";
/** The reads a stream makes of a run. */
const READS = ["DescribeWorkflowExecution", "QueryWorkflow", "GetWorkflowExecutionHistory"];
const reads = (calls: Record<string, number> | undefined) => READS.reduce((sum, m) => sum + (calls?.[m] ?? 0), 0);
/**
 * The reads a follower may make: none, unless Redis counted as down for a moment when its reader
 * started (seen on a loaded machine: a connection's first attempt or a health ping timed out):
 * its reader then reads Temporal alone until its next lease check, a second later (the history's
 * first page, a long poll, at most a query).
 */
const FOLLOWER_READS = 3;

/** A model whose first answer (FIRST, with a tool call) waits for `gate`; its second is SECOND. */
function pacedModel(gate: Promise<unknown>, chunksPerSecond = 30) {
  return startScriptedModel(
    async ({ index }) => {
      if (index > 0) return SECOND;
      await gate;
      return { text: FIRST, toolCalls: [UPDATE_PLAN_CALL] };
    },
    { chunksPerSecond },
  );
}

type Watcher = { text: string; durable: number[] };
type Line = {
  ready?: true;
  firstDelta?: true;
  watchers?: Watcher[];
  calls?: Record<string, number>;
  rejections?: number;
};

/** A child process with `count` watchers of the run: its readiness, first delta and last line as promises. */
function watchingProcess(workflowId: string, count: number, redisUrl: string) {
  const child = fileURLToPath(new URL("./support/lease-watcher-child.ts", import.meta.url));
  // Node itself with tsx's loader (not tsx's CLI, which runs the script in a child of its own): a kill reaches the watchers.
  const process_: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=durable-agent-source", child, harness.address, workflowId, String(count)],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DURABLE_AGENT_REDIS_URL: redisUrl } },
  );
  const ready = deferred();
  const firstDelta = deferred();
  const end = (async () => {
    let last: Line | undefined;
    for await (const line of createInterface({ input: process_.stdout! })) {
      const parsed = JSON.parse(line) as Line;
      if (parsed.ready) ready.resolve();
      if (parsed.firstDelta) firstDelta.resolve();
      last = parsed;
    }
    const code = await new Promise<number | null>((resolve) =>
      process_.exitCode !== null || process_.signalCode !== null
        ? resolve(process_.exitCode)
        : process_.on("exit", resolve),
    );
    return { code, last };
  })();
  return {
    ready: ready.promise,
    firstDelta: firstDelta.promise,
    end,
    kill: () => process_.kill("SIGKILL"),
  };
}

/** Every watcher of the process got the whole text and every durable event once, in order, to `run.finished`. */
function expectWhole(watchers: Watcher[] | undefined, count: number): void {
  expect(watchers).toHaveLength(count);
  for (const watcher of watchers!) {
    expect(watcher.text).toBe(FIRST + SECOND);
    expect(watcher.durable).toEqual(watcher.durable.map((_o, i) => i));
    expect(watcher.durable).toEqual(watchers![0]!.durable);
  }
}

/** Starts a streamed run of `agent` on a worker that publishes deltas to Redis at `url`, and runs `fn` with its workflow id. */
function withRedisRun<T>(
  agent: ReturnType<typeof planAgent>,
  url: string,
  fn: (workflowId: string) => Promise<T>,
): Promise<T> {
  return withWorker(
    harness,
    [agent],
    async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      return fn(handle.workflowId);
    },
    { deltas: ai.deltas.redis({ url }) },
  );
}

describe("one Temporal reader per run across processes (Redis)", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it("10 watchers over 2 processes: one process reads Temporal, the other none, and every watcher gets every event once and the whole text", async () => {
    const gate = deferred();
    const model = await pacedModel(gate.promise);
    const agent = planAgent(model.baseURL, "lease-two-processes");
    const [a, b] = await withRedisRun(agent, redis.url, async (workflowId) => {
      const processes = [watchingProcess(workflowId, 5, redis.url), watchingProcess(workflowId, 5, redis.url)];
      await Promise.all(processes.map((p) => p.ready));
      gate.resolve();
      return Promise.all(processes.map((p) => p.end));
    });
    await model.close();
    for (const { code, last } of [a!, b!]) {
      expect(code).toBe(0);
      expectWhole(last?.watchers, 5);
      expect(last?.rejections).toBe(0);
    }
    const [leader, follower] = reads(a!.last?.calls) >= reads(b!.last?.calls) ? [a!, b!] : [b!, a!];
    console.log(
      `Temporal reads of one run, 10 watchers over 2 processes: lease holder ${JSON.stringify(leader.last?.calls)}, follower ${JSON.stringify(follower.last?.calls)}`,
    );
    // The follower read Temporal not at all (see FOLLOWER_READS): the run cost Temporal one reader's reads.
    expect(reads(follower.last?.calls)).toBeLessThanOrEqual(FOLLOWER_READS);
    expect(leader.last?.calls?.QueryWorkflow).toBeGreaterThan(0);
    expect(leader.last?.calls?.GetWorkflowExecutionHistory).toBeGreaterThan(0);
    expect(leader.last?.calls?.DescribeWorkflowExecution ?? 0).toBe(0); // deltas through Redis
  });

  it("the lease holder killed mid-answer: a follower takes over, and no durable event is lost or repeated", async () => {
    const gate = deferred();
    const model = await pacedModel(gate.promise, 15);
    const agent = planAgent(model.baseURL, "lease-holder-killed");
    const follower = await withRedisRun(agent, redis.url, async (workflowId) => {
      // The first process alone takes the lease; the second follows it.
      const holder = watchingProcess(workflowId, 3, redis.url);
      await holder.ready;
      const follower = watchingProcess(workflowId, 3, redis.url);
      await follower.ready;
      gate.resolve();
      await follower.firstDelta;
      holder.kill();
      expect((await holder.end).last?.watchers).toBeUndefined(); // killed before its end
      return follower.end;
    });
    await model.close();
    expect(follower.code).toBe(0);
    expectWhole(follower.last?.watchers, 3);
    // It read Temporal only after the holder died: once it took the lease.
    expect(follower.last?.calls?.GetWorkflowExecutionHistory).toBeGreaterThan(0);
  });

  it("a stream resumed (`after`) through a follower gives every durable event once and the text once", async () => {
    const gate = deferred();
    const model = await pacedModel(gate.promise);
    const agent = planAgent(model.baseURL, "lease-follower-resume");
    const counted = await connectCountedClient(harness.address, { deltas: ai.deltas.redis({ url: redis.url }) });
    const { before, after, holder } = await withRedisRun(agent, redis.url, async (workflowId) => {
      const holder = watchingProcess(workflowId, 1, redis.url);
      await holder.ready;
      const run = await ai.getRun(workflowId, { client: counted.client });
      const before: StreamedRunEvent[] = [];
      let deltas = 0;
      for await (const event of run.stream()) {
        gate.resolve();
        before.push(event);
        if (event.type === "text.delta" && ++deltas === 3) break; // drop mid-answer
      }
      const after: StreamedRunEvent[] = [];
      for await (const event of run.stream({ after: before.at(-1)!.id! })) after.push(event);
      return { before, after, holder: await holder.end };
    });
    await model.close();
    expect(holder.code).toBe(0);
    expectWhole(holder.last?.watchers, 1);
    const all = [...before, ...after];
    const text = all.map((e) => (e.type === "text.delta" ? e.text : "")).join("");
    const durable = all.filter((e) => e.type !== "text.delta").map((e) => e.offset);
    expect(text).toBe(FIRST + SECOND);
    expect(durable).toEqual(durable.map((_o, i) => i));
    expect(all.at(-1)?.type).toBe("run.finished");
    const counts: CallCounts = counted.counts;
    console.log(`Temporal calls of the resumed follower: ${JSON.stringify(Object.fromEntries(counts.calls))}`);
    expect(counts.count("QueryWorkflow") + counts.count("GetWorkflowExecutionHistory")).toBeLessThanOrEqual(
      FOLLOWER_READS,
    );
    await counted.close();
  });

  /**
   * Runs a workflow id twice: the first run read to its end by a process of its own (its events
   * stay in Redis), then the second read by another process and by this one, after the first. With
   * `staleLease`, a lease naming the first run's chain is left in Redis before the second run, as a
   * holder that died just after the first run's end would leave it.
   */
  async function reuseWorkflowId(staleLease: boolean) {
    const gate = deferred();
    // Told apart by their prompts (not by the order of requests, which a retried model call shifts).
    const model = await startScriptedModel(
      async ({ body }) => {
        const second = JSON.stringify(body.messages).includes(SECOND_PROMPT);
        const answered = body.messages.some((m) => m.role === "tool");
        if (second && !answered) await gate.promise; // the second run's first answer
        if (answered) return second ? "Lunges stay in." : SECOND;
        return { text: second ? "Squats are back on leg day." : FIRST, toolCalls: [UPDATE_PLAN_CALL] };
      },
      { chunksPerSecond: 30 },
    );
    const agent = planAgent(model.baseURL, "lease-reused-id");
    const workflowId = `lease-reused-id-${randomUUID()}`;
    const counted = await connectCountedClient(harness.address, { deltas: ai.deltas.redis({ url: redis.url }) });
    const monitor = createClient({ url: redis.url });
    monitor.on("error", () => undefined); // Redis is stopped after the tests
    await monitor.connect();
    const outcome = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const start = (prompt: string) =>
          agent.start(prompt, { client: harness.client, taskQueue, streamText: true, workflowId });
        await start("Swap squats for lunges");
        const first = await watchingProcess(workflowId, 1, redis.url).end;
        if (staleLease) {
          const [last] = (await monitor.xRevRange(`durable-agent:events:${workflowId}`, "+", "-", { COUNT: 1 })) ?? [];
          expect(last?.message.chain).toBeTruthy(); // the first run's holder published its events
          await monitor.set(`durable-agent:reader:${workflowId}`, `a-dead-reader ${last!.message.chain}`, {
            PX: 600_000,
          });
        }
        await start(SECOND_PROMPT);
        const holder = watchingProcess(workflowId, 1, redis.url);
        await holder.ready;
        const second: StreamedRunEvent[] = [];
        for await (const event of (await ai.getRun(workflowId, { client: counted.client })).stream()) {
          gate.resolve();
          second.push(event);
        }
        return { first, second, holder: await holder.end };
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await model.close();
    await monitor.close();
    const { first, second, holder } = outcome;
    expectWhole(first.last?.watchers, 1);
    const answers = "Squats are back on leg day.Lunges stay in.";
    expect(holder.last?.watchers?.[0]?.text).toBe(answers);
    const durable = second.filter((e) => e.type !== "text.delta");
    expect(second.map((e) => (e.type === "text.delta" ? e.text : "")).join("")).toBe(answers);
    expect(durable.map((e) => e.offset)).toEqual(holder.last?.watchers?.[0]?.durable);
    expect(durable.at(-1)).toMatchObject({ type: "run.finished", result: { reply: "Lunges stay in." } });
    await counted.close();
    return { counts: counted.counts, holderCalls: holder.last?.calls };
  }

  it("a reused workflow id: the followers of its new run never get the last run's events from Redis", async () => {
    const { counts } = await reuseWorkflowId(false);
    // This process followed the second run's holder through Redis (see FOLLOWER_READS).
    expect(counts.count("QueryWorkflow") + counts.count("GetWorkflowExecutionHistory")).toBeLessThanOrEqual(
      FOLLOWER_READS,
    );
  });

  it("a reused workflow id and a stale lease of its last run (its holder died): every process reads the new run from Temporal", async () => {
    const { counts, holderCalls } = await reuseWorkflowId(true);
    // Neither followed the dead holder's ended chain: both read Temporal.
    expect(counts.count("GetWorkflowExecutionHistory")).toBeGreaterThan(0);
    expect(holderCalls?.GetWorkflowExecutionHistory).toBeGreaterThan(0);
  });
});

describe("the run lease when Redis dies", () => {
  it("Redis killed mid-answer: every process reads Temporal itself, and every watcher still gets every event once and the whole text", async () => {
    const redis = await startRedisServer();
    const gate = deferred();
    const model = await pacedModel(gate.promise, 15);
    const agent = planAgent(model.baseURL, "lease-redis-killed");
    const ends = await withRedisRun(agent, redis.url, async (workflowId) => {
      const processes = [watchingProcess(workflowId, 3, redis.url), watchingProcess(workflowId, 3, redis.url)];
      await Promise.all(processes.map((p) => p.ready));
      gate.resolve();
      await Promise.race(processes.map((p) => p.firstDelta));
      await redis.kill();
      return Promise.all(processes.map((p) => p.end));
    });
    await model.close();
    for (const { code, last } of ends) {
      expect(code).toBe(0);
      expectWhole(last?.watchers, 3);
      // Both read Temporal after Redis died (the follower too): the rest of the run, and the answer from the heartbeats.
      expect(last?.calls?.GetWorkflowExecutionHistory).toBeGreaterThan(0);
      expect(last?.calls?.DescribeWorkflowExecution).toBeGreaterThan(0);
    }
    await redis.stop();
  });
});
