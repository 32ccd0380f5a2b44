/**
 * The throughput benchmark's wait for a run's result (bench/deadline.ts): every
 * client call in it carries the deadline, so none outlives the benchmark, and it adds no listener
 * to any AbortSignal. The client adds an abort listener per call to the signal of
 * `withAbortSignal` and never removes it: a result's long polls over a minutes-long run passed 10
 * and printed `MaxListenersExceededWarning` (567 in one full `npm run bench`). And the dev server's
 * CPU time a round (bench/process-cpu.ts), found by the port it listens on.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { withDeadline } from "../bench/deadline.js";
import { pidListeningOn, processCpuMs } from "../bench/process-cpu.js";
import { connectHarness, taskQueue, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** The `MaxListenersExceededWarning`s this process emits while `fn` runs (and the tick after). */
async function listenerWarnings(fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const onWarning = (warning: Error) => {
    if (warning.name === "MaxListenersExceededWarning") count++;
  };
  process.on("warning", onWarning);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off("warning", onWarning);
  }
  return count;
}

/** Twelve client calls in a row: more than an EventTarget's default of 10 listeners. */
const twelveCalls = async () => {
  for (let i = 0; i < 12; i++) await harness.client.workflowService.getSystemInfo({});
};

describe("the throughput benchmark's wait for a result", () => {
  it("adds no abort listener per call: twelve calls print no MaxListenersExceededWarning (withAbortSignal around them does)", async () => {
    const signal = new AbortController().signal;
    expect(await listenerWarnings(() => harness.client.withAbortSignal(signal, twelveCalls))).toBe(1);
    expect(await listenerWarnings(() => withDeadline(harness.client, Date.now() + 60_000, twelveCalls))).toBe(0);
  });

  it("gives up at the deadline with an error that says so", async () => {
    const handle = await harness.client.workflow.start("noSuchWorkflowType", {
      taskQueue: taskQueue(), // no worker polls it: the run never ends
      workflowId: `deadline-${randomUUID()}`,
    });
    try {
      await expect(withDeadline(harness.client, Date.now() + 500, () => handle.result())).rejects.toThrow(
        "not finished by the benchmark's deadline",
      );
    } finally {
      await handle.terminate();
    }
  });
});

describe("the throughput benchmark's server CPU", () => {
  it("finds the dev server by the port it listens on, and reads its CPU time, which grows while it works", async () => {
    const pid = pidListeningOn(harness.address)!;
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("temporal");
    const before = processCpuMs(pid);
    for (let i = 0; i < 300; i++) await harness.client.workflowService.getSystemInfo({});
    expect(processCpuMs(pid)).toBeGreaterThan(before);
    expect(before).toBeGreaterThan(0);
    expect(pidListeningOn("127.0.0.1:1")).toBeUndefined();
    expect(processCpuMs(2 ** 22 + 1)).toBeNaN(); // above Linux's pid_max: no such process
  });
});
