/**
 * Issue 42: `durable-agent schedule create|list|pause|unpause|trigger|delete` through the CLI's
 * `main` in this process, against the suite's dev server (`--address`). What each command did is
 * read back with `ai.schedules.get(id).describe()`. Bad input (a cron expression, an agent the
 * module does not export, a taken id, an unknown schedule) exits with the typed error and creates
 * nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, UnknownScheduleError } from "../src/index.js";
import { runMain } from "./support/cli-helpers.js";
import { connectHarness, taskQueue, type Harness } from "./support/harness.js";

const AGENTS = "test/fixtures/cli-agents.ts";
let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const schedule = (...args: string[]) => runMain(["schedule", ...args, "--address", harness.address]);
const get = (id: string) => ai.schedules.get(id, { client: harness.client });
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 200 });

describe("durable-agent schedule", () => {
  it("create (checked against the module's agent), list, pause, unpause, trigger and delete", async () => {
    const id = `cli-${randomUUID()}`;
    const queue = taskQueue();
    const created = await schedule(
      "create",
      id,
      "cli-concierge",
      "Summarise yesterday's tickets",
      "--module",
      AGENTS,
      "--every",
      "1h",
      "--context",
      '{"userId":"u-1"}',
      "--overlap",
      "buffer-one",
      "--note",
      "from the CLI",
      "--task-queue",
      queue,
    );
    expect(created).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout).toMatch(
      new RegExp(`^Schedule ${id} of agent "cli-concierge" on task queue ${queue}: next run 20`),
    );
    expect(await get(id).describe()).toMatchObject({
      agent: "cli-concierge",
      taskQueue: queue,
      context: { userId: "u-1" },
      overlap: "buffer-one",
      note: "from the CLI",
      spec: { intervals: [{ every: 3_600_000 }] },
    });

    await poll(async () => (await schedule("list")).stdout).toMatch(
      new RegExp(`^${id}\\s+cli-concierge\\s+active\\s+20`, "m"),
    );
    const listed = await schedule("list", "--json");
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, agent: "cli-concierge" })]),
    );

    expect(await schedule("pause", id, "--note", "holiday")).toMatchObject({
      code: 0,
      stdout: `Schedule ${id} paused.`,
    });
    expect(await get(id).describe()).toMatchObject({ paused: true, note: "holiday", nextRuns: [] });
    await poll(async () => (await schedule("list")).stdout).toMatch(
      new RegExp(`^${id}\\s+cli-concierge\\s+paused\\s+-\\s+holiday`, "m"),
    );

    expect(await schedule("unpause", id)).toMatchObject({ code: 0, stdout: `Schedule ${id} unpaused.` });
    expect((await get(id).describe()).paused).toBe(false);

    expect(await schedule("trigger", id)).toMatchObject({ code: 0 });
    await poll(async () => (await get(id).describe()).runsStarted).toBe(1);
    const [run] = (await get(id).describe()).recentRuns;
    expect(run!.workflowId).toMatch(new RegExp(`^cli-concierge-${id}-`));
    await harness.client.workflow.getHandle(run!.workflowId).terminate("the test has no worker for it");

    expect(await schedule("delete", id)).toMatchObject({ code: 0, stdout: `Schedule ${id} deleted.` });
    await expect(get(id).describe()).rejects.toSatisfy(UnknownScheduleError.isInstance);
  });

  it.each([
    [
      "an invalid cron expression",
      ["cli-greeter", "Hi", "--module", AGENTS, "--cron", "0 25 * * *"],
      64,
      /^ScheduleOptionsError: Invalid schedule option `cron`: "0 25 \* \* \*": the hour 25 is not in 0-23/,
    ],
    [
      "an agent the module does not export",
      ["cli-ghost", "Hi", "--module", AGENTS, "--every", "1h"],
      64,
      /^ScheduleOptionsError: Invalid schedule option `agent`: the module .* exports no agent named "cli-ghost" \(it exports .*"cli-greeter"/,
    ],
    [
      "a context the agent's schema rejects",
      ["cli-concierge", "Hi", "--module", AGENTS, "--every", "1h", "--context", '{"userId":7}'],
      64,
      /^ContextValidationError: /,
    ],
  ])("create with %s exits %i with the typed error, and creates nothing", async (_, args, code, message) => {
    const id = `cli-${randomUUID()}`;
    const exit = await schedule("create", id, ...args);
    expect(exit).toMatchObject({ code, stdout: "" });
    expect(exit.stderr).toMatch(message);
    await expect(get(id).describe()).rejects.toSatisfy(UnknownScheduleError.isInstance);
  });

  it("create with an id that exists exits 1 with ScheduleExistsError; pause, trigger and delete of an unknown schedule exit 1 with UnknownScheduleError", async () => {
    const id = `cli-${randomUUID()}`;
    const args = ["create", id, "cli-greeter", "Hi", "--module", AGENTS, "--task-queue", taskQueue()];
    expect((await schedule(...args, "--cron", "@daily")).code).toBe(0);
    try {
      const taken = await schedule(...args, "--every", "2s");
      expect(taken).toMatchObject({ code: 1, stdout: "" });
      expect(taken.stderr).toMatch(new RegExp(`^ScheduleExistsError: A schedule with id "${id}" already exists`));
      expect((await get(id).describe()).spec.intervals).toEqual([]);
    } finally {
      await get(id).delete();
    }
    for (const action of ["pause", "unpause", "trigger", "delete"]) {
      const missing = await schedule(action, "no-such-schedule");
      expect(missing).toMatchObject({ code: 1, stdout: "" });
      expect(missing.stderr).toMatch(/^UnknownScheduleError: No schedule with id "no-such-schedule"/);
    }
  });

  it("bad arguments exit 64 with the usage", async () => {
    for (const [args, message] of [
      [["create", "x", "cli-greeter", "Hi", "--every", "1h"], "create needs --module <file>"],
      [["create", "x", "cli-greeter"], 'create takes <scheduleId> <agent> "<input>"'],
      [["pause", "x", "--cron", "@daily"], "--cron does not apply to pause"],
      [["rename", "x"], 'Unknown action "rename"'],
      [["trigger"], "trigger takes one <scheduleId>"],
    ] as const) {
      const exit = await schedule(...args);
      expect(exit.code).toBe(64);
      expect(exit.stderr).toContain(message);
      expect(exit.stderr).toContain("Usage: durable-agent schedule");
    }
  });
});
