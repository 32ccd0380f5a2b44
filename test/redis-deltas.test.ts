/**
 * Answer deltas through Redis (issue 33, items 2, 4 and 5), on a real redis-server started by each
 * test that needs one: with Redis up, watchers in any process read the answer in flight from it
 * and make no `describe()`; with Redis killed, restarted or never started they fall back to the
 * heartbeats and still get every answer whole and every durable event once, never mixing two
 * attempts' text; an encrypting data converter keeps Redis free of the answer's plaintext.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@temporalio/client";
import {
  ai,
  encryptedDataConverter,
  type Agent,
  type AgentWorkerOptions,
  type DeltaLogger,
  type StreamedRunEvent,
} from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { freePort } from "../src/testing/port-check.js";
import { keyring, newKey } from "./support/codec-helpers.js";
import { connectCountedClient } from "./support/counted-client.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { planAgent, UPDATE_PLAN_CALL } from "./support/plan-agent.js";
import { deferred } from "./support/ops-helpers.js";
import { startRedisServer, type RedisServer } from "../src/testing/redis-server.js";
import { decodeChunk } from "../src/deltas/chunk-codec.js";
import { loadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const FIRST =
  "Lunges work the same muscles as squats with less load on the knees, and they train balance too. " +
  "Keep your front knee above the ankle, step long enough that the back knee nearly touches the floor, " +
  "and start with three sets of ten on each leg. I will swap them into your plan now.";
const SECOND = "Done: lunges are in your plan for leg day, three sets of ten on each leg.";
const DESCRIBE = "DescribeWorkflowExecution";

type Delta = Extract<StreamedRunEvent, { type: "text.delta" }>;

/** Starts the agent's streamed run ("Swap squats for lunges") on the worker's task queue. */
function startSwap(agent: Agent, taskQueue: string) {
  return agent.start("Swap squats for lunges", { client: harness.client, taskQueue, streamText: true });
}

/**
 * A paced model: its first answer (FIRST, with a tool call) waits for `gate`, its second (SECOND)
 * for `secondGate`; `first` replaces the first answer (a cut stream, for a retry).
 */
async function pacedModel(
  gate: Promise<unknown>,
  options: {
    secondGate?: Promise<unknown>;
    first?: ScriptedTurn;
    onAnswer?: (index: number) => void;
    chunksPerSecond?: number;
  } = {},
) {
  return startScriptedModel(
    async ({ index }) => {
      if (index === 0) await gate;
      if (index > 0 && options.secondGate) await options.secondGate;
      options.onAnswer?.(index);
      if (index === 0 && options.first) return options.first;
      return index === 0 || (options.first && index === 1) ? { text: FIRST, toolCalls: [UPDATE_PLAN_CALL] } : SECOND;
    },
    { chunksPerSecond: options.chunksPerSecond ?? 40 },
  );
}

/** Resolves after `count` ticks. */
function countdown(count: number): { done: Promise<void>; tick: () => void } {
  const { promise, resolve } = deferred();
  let left = count;
  return { done: promise, tick: () => --left === 0 && resolve() };
}

/** Reads a stream to its end, calling `onEvent` with each event. */
async function collect(
  stream: AsyncIterable<StreamedRunEvent>,
  onEvent: (event: StreamedRunEvent, seen: StreamedRunEvent[]) => void = () => undefined,
): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent(event, events);
  }
  return events;
}

/** Starts a streamed run of `agent` on a worker with `workerOptions`, and reads its stream to the end through `client` (`collect`). */
function streamOneRun(
  agent: ReturnType<typeof planAgent>,
  client: Client,
  workerOptions: Partial<AgentWorkerOptions>,
  onEvent: (event: StreamedRunEvent, seen: StreamedRunEvent[]) => void,
): Promise<StreamedRunEvent[]> {
  return withWorker(
    harness,
    [agent],
    async ({ taskQueue }) => {
      const handle = await startSwap(agent, taskQueue);
      return collect((await ai.getRun(handle.workflowId, { client })).stream(), onEvent);
    },
    workerOptions,
  );
}

/** What a watcher saw: its text of each trip, and its durable events' offsets. */
function summary(events: StreamedRunEvent[]) {
  const text = (trip: number) => events.map((e) => (e.type === "text.delta" && e.trip === trip ? e.text : "")).join("");
  const durable = events.filter((e) => e.type !== "text.delta");
  return { first: text(1), second: text(2), offsets: durable.map((e) => e.offset), last: durable.at(-1)?.type };
}

/** Every answer whole, every durable event once and in order, the run finished. */
function expectWhole(events: StreamedRunEvent[]): void {
  const s = summary(events);
  expect(s).toMatchObject({ first: FIRST, second: SECOND, last: "run.finished" });
  expect(s.offsets).toEqual(s.offsets.map((_o, i) => i));
}

/** A logger that keeps what it was told. */
function keptLogger(): DeltaLogger & { warnings: string[]; infos: string[]; back: Promise<void> } {
  const back = deferred();
  const warnings: string[] = [];
  const infos: string[] = [];
  return {
    warnings,
    infos,
    back: back.promise,
    warn: (message) => warnings.push(message),
    info: (message) => {
      infos.push(message);
      back.resolve();
    },
  };
}

/** A counted client whose streams read deltas from Redis at `url`. */
function redisClient(
  url: string,
  logger: DeltaLogger = keptLogger(),
  dataConverter?: ReturnType<typeof encryptedDataConverter>,
) {
  return connectCountedClient(harness.address, { deltas: ai.deltas.redis({ url, logger }), dataConverter });
}

/** What a watcher in a process of its own printed (test/support/stream-watcher-child.ts). */
type WatcherLine = {
  ready?: true;
  firstDeltaAt?: number;
  text?: string;
  durable?: number[];
  calls?: Record<string, number>;
};

/**
 * Streams run `workflowId` in a process of its own, with Redis deltas at `redisUrl`
 * (`DURABLE_AGENT_REDIS_URL`), calling `onLine` with each line it prints; resolves once it exited
 * by itself, with its exit code and its last line (what it read).
 */
async function watchInChild(
  workflowId: string,
  redisUrl: string,
  onLine: (line: WatcherLine) => void = () => undefined,
): Promise<{ code: number | null; end: WatcherLine }> {
  const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
  const child = fileURLToPath(new URL("./support/stream-watcher-child.ts", import.meta.url));
  const watcher = spawn(tsx, ["--conditions=durable-agent-source", child, harness.address, workflowId], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DURABLE_AGENT_REDIS_URL: redisUrl },
  });
  const exited = new Promise<number | null>((resolve) => watcher.on("exit", resolve));
  const lines: WatcherLine[] = [];
  for await (const line of createInterface({ input: watcher.stdout })) {
    const parsed = JSON.parse(line) as WatcherLine;
    onLine(parsed);
    lines.push(parsed);
  }
  return { code: await exited, end: lines.at(-1)! };
}

describe("deltas through Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it("with Redis, no describe() is made while the model answers, and every watcher's text is the model's", async () => {
    const counted = await redisClient(redis.url);
    const attached = countdown(5);
    const model = await pacedModel(attached.done);
    const agent = planAgent(model.baseURL, "redis-no-describe");
    const seen = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        return Promise.all(
          Array.from({ length: 5 }, async () => {
            let ticked = false;
            return collect((await ai.getRun(handle.workflowId, { client: counted.client })).stream(), () => {
              if (!ticked) attached.tick();
              ticked = true;
            });
          }),
        );
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await model.close();
    for (const events of seen) expectWhole(events);
    // The answers streamed delta by delta, not whole at their model.answered.
    for (const events of seen) expect(events.filter((e) => e.type === "text.delta").length).toBeGreaterThan(4);
    expect(counted.counts.count(DESCRIBE)).toBe(0);
    expect(counted.counts.rejections()).toBe(0);
    await counted.close();
  });

  it("a publisher's close() resolves once the answer's last text is on the channel and its list is gone (the model call awaits it)", async () => {
    const transport = ai.deltas.redis({ url: redis.url });
    await transport.load();
    const converter = loadDataConverter();
    const workflowId = `close-order-${randomUUID()}`;
    const subscriber = createClient({ url: redis.url });
    await subscriber.connect();
    const texts: string[] = [];
    const whole = deferred();
    await subscriber.subscribe(`durable-agent:deltas:${workflowId}`, (message) => {
      void decodeChunk(converter, message).then((chunk) => {
        texts[chunk!.from] = chunk!.text;
        if (texts.join("") === "Hello there.") whole.resolve();
      });
    });
    const publisher = transport.publishAnswer({ workflowId, trip: 1, attempt: 1 }, { converter, warn: () => {} })!;
    publisher.add("Hello");
    publisher.add(" there.");
    const closed = publisher.close();
    expect(closed).toBeInstanceOf(Promise);
    await closed;
    // Published, then removed: both before close() resolved.
    expect(
      await subscriber
        .duplicate()
        .connect()
        .then(async (reader) => {
          const exists = await reader.exists(`durable-agent:answer:${workflowId}`);
          await reader.close();
          return exists;
        }),
    ).toBe(0);
    await whole.promise;
    expect(texts.join("")).toBe("Hello there.");
    await subscriber.close();
    await transport.close();
  });

  it("watchers in two processes read the deltas from Redis (DURABLE_AGENT_REDIS_URL), with no describe()", async () => {
    const ready = countdown(2);
    const model = await pacedModel(ready.done);
    const agent = planAgent(model.baseURL, "redis-processes");
    const outcomes = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        return Promise.all(
          Array.from({ length: 2 }, () =>
            watchInChild(handle.workflowId, redis.url, (line) => line.ready && ready.tick()),
          ),
        );
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await model.close();
    for (const { code, end } of outcomes) {
      expect(code).toBe(0);
      expect(end.text).toBe(FIRST + SECOND);
      expect(end.durable).toEqual(end.durable!.map((_o, i) => i));
      expect(end.calls?.[DESCRIBE] ?? 0).toBe(0);
    }
  });

  it("with an encrypting data converter, Redis never holds the answer's plaintext, and watchers read it whole", async () => {
    const dataConverter = encryptedDataConverter(keyring({ k1: newKey() }, "k1"));
    const counted = await redisClient(redis.url, keptLogger(), dataConverter);
    const monitor = createClient({ url: redis.url });
    await monitor.connect();
    const commands: string[] = [];
    await monitor.monitor((line) => commands.push(line));
    const attached = deferred();
    const model = await pacedModel(attached.promise);
    const agent = planAgent(model.baseURL, "redis-encrypted");
    const events = await streamOneRun(
      agent,
      counted.client,
      { deltas: ai.deltas.redis({ url: redis.url }), dataConverter },
      () => attached.resolve(),
    );
    await model.close();
    expectWhole(events);
    expect(counted.counts.count(DESCRIBE)).toBe(0); // the text came through Redis, decrypted by the client
    const published = commands.filter((line) => /"publish"/i.test(line));
    expect(published.length).toBeGreaterThan(4);
    for (const word of ["Lunges", "squats", "balance", "leg day"])
      expect(commands.filter((line) => line.includes(word))).toEqual([]);
    await monitor.close();
    await counted.close();
  });

  it("a retried attempt gives its trip.retry before its text, and no text of the failed attempt after it", async () => {
    const counted = await redisClient(redis.url);
    const attached = deferred();
    const model = await pacedModel(attached.promise, { first: { text: FIRST, cutAfterChunks: 10, cutBy: "close" } });
    const agent = planAgent(model.baseURL, "redis-retry");
    const events = await streamOneRun(agent, counted.client, { deltas: ai.deltas.redis({ url: redis.url }) }, () =>
      attached.resolve(),
    );
    await model.close();
    const retry = events.findIndex((e) => e.type === "trip.retry");
    expect(events[retry]).toMatchObject({ type: "trip.retry", trip: 1, attempt: 2 });
    const deltas = events.filter((e): e is Delta => e.type === "text.delta");
    const before = deltas.filter((d) => events.indexOf(d) < retry);
    const after = deltas.filter((d) => events.indexOf(d) > retry);
    expect(before.every((d) => d.attempt === 1)).toBe(true);
    expect(FIRST.startsWith(before.map((d) => d.text).join(""))).toBe(true);
    expect(before.length).toBeGreaterThan(0); // attempt 1 streamed through Redis before its cut
    expect(after.filter((d) => d.trip === 1).every((d) => d.attempt === 2)).toBe(true);
    expect(after.map((d) => d.text).join("")).toBe(FIRST + SECOND);
    const durable = events.filter((e) => e.type !== "text.delta").map((e) => e.offset);
    expect(durable).toEqual(durable.map((_o, i) => i));
    expect(counted.counts.count(DESCRIBE)).toBe(0);
    await counted.close();
  });
  it("a lost attempt whose worker lives on still publishes: a watcher resumed past the new attempt's trip.retry gets none of its text", async () => {
    const released = deferred();
    const model = await startScriptedModel(
      ({ index }) =>
        index === 0
          ? { text: FIRST, cutAfterChunks: 6, cutBy: "close" }
          : { text: SECOND, stallAfterChunks: 1, stallUntil: released.promise },
      { chunksPerSecond: 40 },
    );
    const agent = planAgent(model.baseURL, "redis-lost-attempt");
    const first = await redisClient(redis.url);
    const resumed = await redisClient(redis.url);
    const lostWorker = ai.deltas.redis({ url: redis.url });
    await lostWorker.load();
    const raw = createClient({ url: redis.url });
    await raw.connect();
    const seen = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        let retry: StreamedRunEvent | undefined;
        for await (const event of (await ai.getRun(handle.workflowId, { client: first.client })).stream())
          if (event.type === "trip.retry") {
            retry = event;
            break;
          }
        // Attempt 2 started (its marker is out) and waits for the model; attempt 1's worker, cut off from Temporal, publishes on.
        const published = new Promise<void>((resolve) => {
          void raw.subscribe(`durable-agent:deltas:${handle.workflowId}`, () => resolve());
        });
        const lost = lostWorker.publishAnswer(
          { workflowId: handle.workflowId, trip: 1, attempt: 1 },
          { converter: harness.client.options.loadedDataConverter, warn: () => undefined },
        )!;
        lost.add("Lunges work the same muscles as squats, said the lost attempt.");
        await published;
        // The resumed watcher's reader starts past the marker: it either shows the lost text at once, or asks the server.
        const release = () => released.resolve();
        void resumed.counts.nextStart(DESCRIBE).then(release);
        const events = await collect(
          (await ai.getRun(handle.workflowId, { client: resumed.client })).stream({ fromOffset: retry!.offset + 1 }),
          release,
        );
        return events;
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    const deltas = seen.filter((e): e is Delta => e.type === "text.delta");
    expect(deltas.filter((d) => d.attempt === 1)).toEqual([]);
    expect(deltas.map((d) => d.text).join("")).toBe(SECOND);
    expect(seen.at(-1)).toMatchObject({ type: "run.finished", result: { reply: SECOND, trips: 1 } });
    await raw.quit();
    await lostWorker.close();
    await Promise.all([first.close(), resumed.close(), model.close()]);
  });
});

describe("Redis faults: no durable event lost, no two attempts' text mixed", () => {
  it("Redis killed mid-answer: watchers fall back to the heartbeats, with one warning, and still get the whole answer", async () => {
    const redis = await startRedisServer();
    const logger = keptLogger();
    const counted = await redisClient(redis.url, logger);
    const attached = countdown(3);
    const model = await pacedModel(attached.done);
    const agent = planAgent(model.baseURL, "redis-killed");
    let describesAtKill = 0;
    let killed: Promise<void> | undefined;
    const seen = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        return Promise.all(
          Array.from({ length: 3 }, async () => {
            let ticked = false;
            return collect((await ai.getRun(handle.workflowId, { client: counted.client })).stream(), (event) => {
              if (!ticked) attached.tick();
              ticked = true;
              if (event.type === "text.delta" && !killed) {
                describesAtKill = counted.counts.count(DESCRIBE);
                killed = redis.kill();
              }
            });
          }),
        );
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await killed;
    await model.close();
    for (const events of seen) expectWhole(events);
    expect(describesAtKill).toBe(0);
    expect(counted.counts.count(DESCRIBE)).toBeGreaterThan(0); // the rest came from the heartbeats
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain(redis.url);
    expect(logger.warnings[0]).toContain("heartbeats");
    await counted.close();
    await redis.stop();
  });

  it("Redis restarted mid-run: the answer in flight comes whole from the heartbeats, the next one through Redis again", async () => {
    const redis = await startRedisServer();
    const logger = keptLogger();
    const counted = await redisClient(redis.url, logger);
    const attached = deferred();
    const restarted = deferred();
    let describesAtSecond = -1;
    const model = await pacedModel(attached.promise, {
      secondGate: restarted.promise,
      onAnswer: (index) => {
        if (index === 1) describesAtSecond = counted.counts.count(DESCRIBE);
      },
    });
    const agent = planAgent(model.baseURL, "redis-restarted");
    let restarting: Promise<void> | undefined;
    const events = await streamOneRun(
      agent,
      counted.client,
      { deltas: ai.deltas.redis({ url: redis.url }) },
      (event) => {
        attached.resolve();
        if (event.type === "text.delta" && !restarting)
          restarting = redis.restart().then(async () => {
            await logger.back; // the watching process is subscribed again
            restarted.resolve();
          });
      },
    );
    await model.close();
    expectWhole(events);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.infos).toHaveLength(1);
    // The second answer came through Redis: no describe() while the model gave it.
    expect(describesAtSecond).toBeGreaterThanOrEqual(0);
    expect(counted.counts.count(DESCRIBE)).toBe(describesAtSecond);
    await counted.close();
    await redis.stop();
  });

  it("Redis paused mid-answer (SIGSTOP): watchers fall back to the heartbeats when its pings go unanswered, and back to Redis when it resumes", async () => {
    const redis = await startRedisServer();
    const logger = keptLogger();
    const counted = await redisClient(redis.url, logger);
    const attached = deferred();
    // A slow answer (about 5 s), so that the pause is noticed while the model still answers.
    const model = await pacedModel(attached.promise, { chunksPerSecond: 8 });
    const agent = planAgent(model.baseURL, "redis-paused");
    let paused: Promise<void> | undefined;
    const events = await streamOneRun(
      agent,
      counted.client,
      { deltas: ai.deltas.redis({ url: redis.url }) },
      (event) => {
        attached.resolve();
        if (event.type === "text.delta" && !paused) {
          redis.pause();
          // The first describe() is the fallback: resume Redis then.
          paused = counted.counts.nextStart(DESCRIBE).then(() => redis.resume());
        }
      },
    );
    await paused;
    await model.close();
    expectWhole(events);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain("no answer to a ping");
    await logger.back;
    expect(logger.infos).toHaveLength(1);
    await counted.close();
    await redis.stop();
  });

  it("Redis never started: one clear warning, the heartbeat default, every answer whole", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const logger = keptLogger();
    const counted = await redisClient(url, logger);
    const attached = deferred();
    const model = await pacedModel(attached.promise);
    const agent = planAgent(model.baseURL, "redis-never");
    const events = await streamOneRun(agent, counted.client, { deltas: ai.deltas.redis({ url }) }, () =>
      attached.resolve(),
    );
    await model.close();
    expectWhole(events);
    expect(events.filter((e) => e.type === "text.delta").length).toBeGreaterThan(2); // streamed from the heartbeats
    expect(counted.counts.count(DESCRIBE)).toBeGreaterThan(0);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(
      new RegExp(`Redis at ${url} is unreachable .*fall back to the model call's heartbeats`),
    );
    await counted.close();
  });

  it("a watching process whose Redis never started exits by itself once its stream ended, with the whole answer", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const attached = deferred();
    const model = await pacedModel(attached.promise);
    const agent = planAgent(model.baseURL, "redis-never-exits");
    const { code, end } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        return watchInChild(handle.workflowId, url, (line) => line.ready && attached.resolve());
      },
      { deltas: ai.deltas.redis({ url }) },
    );
    await model.close();
    // It exited on its own (no process.exit): nothing of the Redis transport held it while Redis stayed down.
    expect(code).toBe(0);
    expect(end.text).toBe(FIRST + SECOND);
    expect(end.durable).toEqual(end.durable!.map((_o, i) => i));
    expect(end.calls?.[DESCRIBE]).toBeGreaterThan(0); // the deltas came from the heartbeats
  });

  it("a watching process whose Redis was killed mid-answer exits by itself once its stream ended, with the whole answer", async () => {
    const redis = await startRedisServer();
    const attached = deferred();
    const model = await pacedModel(attached.promise);
    const agent = planAgent(model.baseURL, "redis-killed-exits");
    let killed: Promise<void> | undefined;
    const { code, end } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        return watchInChild(handle.workflowId, redis.url, (line) => {
          if (line.ready) attached.resolve();
          if (line.firstDeltaAt !== undefined) killed = redis.kill();
        });
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await killed;
    await model.close();
    expect(killed).toBeDefined();
    expect(code).toBe(0);
    expect(end.text).toBe(FIRST + SECOND);
    expect(end.durable).toEqual(end.durable!.map((_o, i) => i));
    expect(end.calls?.[DESCRIBE]).toBeGreaterThan(0); // after the kill, the deltas came from the heartbeats
    await redis.stop();
  });

  it("a stream resumed (`after`) across the Redis-to-heartbeat fallback gives every durable event once and the text once", async () => {
    const redis = await startRedisServer();
    const counted = await redisClient(redis.url);
    const attached = deferred();
    const model = await pacedModel(attached.promise);
    const agent = planAgent(model.baseURL, "redis-resume");
    const { before, after } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await startSwap(agent, taskQueue);
        const run = await ai.getRun(handle.workflowId, { client: counted.client });
        // First connection: read until a few deltas came through Redis, kill Redis, read one more delta (from the heartbeats), then drop.
        const before: StreamedRunEvent[] = [];
        let deltas = 0;
        let killedAt = -1;
        for await (const event of run.stream()) {
          attached.resolve();
          before.push(event);
          if (event.type !== "text.delta") continue;
          deltas++;
          if (deltas === 2) {
            await redis.kill();
            killedAt = counted.counts.count(DESCRIBE);
          } else if (killedAt >= 0 && counted.counts.count(DESCRIBE) > killedAt) break;
        }
        const after = await collect(run.stream({ after: before.at(-1)!.id! }));
        return { before, after };
      },
      { deltas: ai.deltas.redis({ url: redis.url }) },
    );
    await model.close();
    const all = [...before, ...after];
    expectWhole(all);
    await counted.close();
    await redis.stop();
  });
});
