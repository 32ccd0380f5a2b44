/**
 * Issue 6, item 2: runs resume after failures. A Temporal server restarted mid-run (state in a
 * SQLite file), and a model API outage (503s, then recovery). The worker-crash test is
 * test/crash.test.ts; replay of recorded histories is test/replay.test.ts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection, makeGrpcRetryInterceptor, type ConnectionOptions } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type StreamedRunEvent } from "../src/index.js";
import { startDevServer, startScriptedModel, type DevServer } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { activityCounts, deferred, freePort } from "./support/ops-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness(); // also installs the suite's quiet runtime
});
afterAll(() => harness.close());

/** A dev server whose state survives a restart on the same port (a SQLite file), with a worker connection and a client (with `clientOptions`). */
async function restartableServer(clientOptions: Omit<ConnectionOptions, "address"> = {}) {
  const port = await freePort();
  const dbFilename = join(mkdtempSync(join(tmpdir(), "durable-agent-restart-")), "temporal.sqlite");
  let server: DevServer = await startDevServer({ port, dbFilename });
  const address = `127.0.0.1:${port}`;
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address, ...clientOptions });
  return {
    address,
    connection,
    client: new Client({ connection: clientConnection }),
    stop: () => server.stop(),
    /** Starts the server again: the same file, the same port. */
    restart: async () => (server = await startDevServer({ port, dbFilename })),
    close: async () => {
      await clientConnection.close();
      await connection.close();
      await server.stop();
    },
  };
}

describe("a Temporal server restart mid-run", () => {
  it("the run completes: the tool call in flight while the server was down reports its result to the restarted server, and runs once", async () => {
    const env = await restartableServer();
    const model = await startScriptedModel([
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: squats are now lunges.",
    ]);
    const toolStarted = deferred();
    const release = deferred();
    const executions: number[] = [];
    const agent = ai.agent({
      name: "restart-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          execute: async (input, ctx) => {
            executions.push(ctx.attempt);
            toolStarted.resolve();
            await release.promise;
            return { ok: true, swapped: input };
          },
        }),
      ],
    });
    const { client } = env;
    try {
      const result = await withWorker(env, [agent], async ({ taskQueue: queue }) => {
        const handle = await agent.start("Swap squats for lunges", { client, taskQueue: queue });
        await toolStarted.promise;
        await env.stop(); // the tool call is in flight, the server goes away
        expect((await env.restart()).address).toBe(env.address);
        release.resolve(); // the tool finishes after the restart and reports to the new server
        return (await ai.getRun(handle.workflowId, { client })).result();
      });
      expect(result).toMatchObject({ stopReason: "answered", reply: "Done: squats are now lunges.", trips: 2 });
      expect(result.toolCalls).toMatchObject([
        { name: "update_plan", status: "ok", output: { ok: true, swapped: { from: "squats", to: "lunges" } } },
      ]);
      expect(executions).toEqual([1]);
      expect(model.requests).toHaveLength(2);
      const handle = client.workflow.getHandle(result.workflowId);
      expect(await activityCounts(handle, "tool.execute")).toEqual({ scheduled: 1, attempts: [1], completed: 1 });
      expect(await activityCounts(handle, "model.call")).toEqual({ scheduled: 2, attempts: [1, 1], completed: 2 });
    } finally {
      release.resolve();
      await env.close();
      await model.close();
    }
  }, 120_000);

  it("a stream read through the outage misses nothing: while the server is unreachable it waits, then goes on from where it was", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: squats are now lunges.",
    ]);
    const release = deferred();
    const agent = ai.agent({
      name: "restart-stream-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          execute: async () => (await release.promise, { ok: true }),
        }),
      ],
    });
    // The stream's client does not retry its calls, so the outage outlasts them at once; it counts the calls the server did not answer.
    let unanswered = 0;
    const serverDownSeen = deferred();
    const env = await restartableServer({
      interceptors: [
        makeGrpcRetryInterceptor({
          retryableDecider: (_attempt, status) => {
            if (status.code === 14 /* UNAVAILABLE */ && ++unanswered >= 3) serverDownSeen.resolve();
            return false;
          },
          delayFunction: () => 0,
        }),
      ],
    });
    const { client } = env;
    try {
      const events = await withWorker(env, [agent], async ({ taskQueue: queue }) => {
        const handle = await agent.start("Swap squats for lunges", { client, taskQueue: queue });
        const toolStarted = deferred();
        const read = (async () => {
          const seen: StreamedRunEvent[] = [];
          for await (const event of handle.stream()) {
            seen.push(event);
            if (event.type === "tool.started") toolStarted.resolve();
          }
          return seen;
        })();
        await toolStarted.promise;
        await env.stop();
        await serverDownSeen.promise; // the stream's polls and its status check went unanswered
        await env.restart();
        release.resolve();
        return read;
      });
      expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i)); // every event once, in order, none skipped
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(["tool.started", "tool.finished", "run.finished"]),
      );
      expect(events.filter((e) => e.type === "trip.started")).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({
        type: "run.finished",
        result: { stopReason: "answered", reply: "Done: squats are now lunges." },
      });
    } finally {
      release.resolve();
      await env.close();
      await model.close();
    }
  }, 120_000);
});

describe("a model API outage", () => {
  it("503s for a while: the model call is retried with growing backoff, the run completes when the API is back, and no trip is counted twice", async () => {
    const OUTAGE_REQUESTS = 3;
    const arrivals: number[] = [];
    let succeeded = 0;
    const model = await startScriptedModel(({ index }) => {
      arrivals.push(Date.now());
      if (index === 0)
        return (succeeded++, { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] });
      // Trip 2: the API is down for OUTAGE_REQUESTS requests, then back.
      if (index <= OUTAGE_REQUESTS)
        return { status: 503, body: { error: { message: "The server is overloaded", type: "server_error" } } };
      return (succeeded++, "Done: squats are now lunges.");
    });
    const agent = ai.agent({
      name: "outage-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          execute: async (input) => ({ ok: true, swapped: input }),
        }),
      ],
    });
    try {
      const { result, counts, events } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const result = await agent.run("Swap squats for lunges", { client: harness.client, taskQueue });
        const handle = harness.client.workflow.getHandle(result.workflowId);
        return {
          result,
          counts: await activityCounts(handle, "model.call"),
          events: (await handle.fetchHistory()).events ?? [],
        };
      });
      expect(result).toMatchObject({ stopReason: "answered", reply: "Done: squats are now lunges.", trips: 2 });
      expect(model.requests).toHaveLength(2 + OUTAGE_REQUESTS);
      // One trip, one successful model request, one completed model.call activity.
      expect(succeeded).toBe(result.trips);
      expect(counts).toEqual({ scheduled: result.trips, attempts: [1, OUTAGE_REQUESTS + 1], completed: result.trips });
      expect(result.trace.filter((e) => e.type === "model.answered").map((e) => e.trip)).toEqual([1, 2]);
      // Temporal's backoff (1 s, then doubling): each wait during the outage is longer than the one before.
      const waits = arrivals
        .slice(1, 2 + OUTAGE_REQUESTS)
        .map((at, i) => at - arrivals[i]!)
        .slice(1);
      expect(waits[0]).toBeGreaterThanOrEqual(900);
      for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
      // The worker names each failed attempt's delay (1 s, doubling): the retry policy's own first
      // interval is short, for an attempt lost with its worker (a heartbeat timeout names none).
      const modelCalls = events.flatMap((e) => {
        const scheduled = e.activityTaskScheduledEventAttributes;
        return scheduled?.activityType?.name === "model.call" ? [scheduled] : [];
      });
      expect(modelCalls.map((c) => c.retryPolicy?.initialInterval?.nanos)).toEqual([200_000_000, 200_000_000]);
      const lastAttempt = events.find((e) => e.activityTaskStartedEventAttributes?.attempt === OUTAGE_REQUESTS + 1);
      const named =
        lastAttempt!.activityTaskStartedEventAttributes!.lastFailure?.applicationFailureInfo?.nextRetryDelay;
      expect(Number(named?.seconds)).toBe(2 ** (OUTAGE_REQUESTS - 1)); // attempt 3 failed: 4 s
    } finally {
      await model.close();
    }
  }, 60_000);
});
