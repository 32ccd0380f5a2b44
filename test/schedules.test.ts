/**
 * Issue 42: an agent on a Temporal Schedule, on the suite's dev server (which runs schedules in real
 * time). An `every: "2s"` schedule starts runs of the agent on a worker; pause stops them (measured
 * against a second schedule used as a clock, so no fixed sleep); trigger starts one now;
 * `overlap: "skip"` skips while a run held by the scripted model is still going; delete removes
 * it; the runs carry `TemporalScheduledById`. Bad input (a cron expression, a taken id, an unknown
 * schedule) is a typed error and creates nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ai,
  ScheduleExistsError,
  ScheduleOptionsError,
  UnknownScheduleError,
  type AgentSchedule,
  type AgentScheduleOptions,
} from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { cronProblem } from "../src/schedules/index.js";
import { deferred } from "./support/ops-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
let model: ScriptedModel;
/** Answers every request at once, unless a test holds the answers back. */
let hold: Promise<void> | undefined;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(async () => (await hold, "Summary: 3 tickets yesterday."));
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

const agent = () => ai.agent({ name: "ticket-summary", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
/** Waits for a schedule's state, polling describe() (bounded: a minute). */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 100 });
const scheduleId = () => `test-${randomUUID()}`;

/** Creates a schedule, runs `fn`, then deletes it (unless `fn` did). */
async function withSchedule(
  options: AgentScheduleOptions,
  fn: (schedule: AgentSchedule, taskQueue: string) => Promise<void>,
): Promise<void> {
  const coach = agent();
  await withWorker(harness, [coach], async ({ taskQueue }) => {
    const schedule = await coach.schedule(scheduleId(), { client: harness.client, taskQueue, ...options });
    try {
      await fn(schedule, taskQueue);
    } finally {
      await schedule.delete().catch((error: unknown) => {
        if (!UnknownScheduleError.isInstance(error)) throw error;
      });
    }
  });
}

describe("agent.schedule()", () => {
  it('every: "2s" starts runs of the agent with the input; the runs complete and carry TemporalScheduledById', async () => {
    await withSchedule({ every: "2s", input: "Summarise yesterday's tickets" }, async (schedule) => {
      await poll(async () => (await schedule.describe()).runsStarted).toBeGreaterThanOrEqual(2);
      const description = await schedule.describe();
      expect(description).toMatchObject({
        agent: "ticket-summary",
        paused: false,
        overlap: "skip",
        input: [{ role: "user", content: "Summarise yesterday's tickets" }],
        spec: { intervals: [{ every: 2000 }] },
      });
      expect(description.nextRuns.length).toBeGreaterThan(0);
      const [first] = description.recentRuns;
      expect(first!.workflowId).toMatch(new RegExp(`^ticket-summary-${schedule.id}-`));
      const run = await ai.getRun(first!.workflowId, { client: harness.client });
      expect((await run.result()).reply).toBe("Summary: 3 tickets yesterday.");

      const query = `TemporalScheduledById = '${schedule.id}'`;
      await poll(async () => {
        const ids: string[] = [];
        for await (const info of harness.client.workflow.list({ query })) ids.push(info.workflowId);
        return ids;
      }).toContain(first!.workflowId);
    });
  });

  it("pause stops the runs (while a 2 s clock schedule ticks twice), trigger starts one now, unpause resumes, delete removes the schedule", async () => {
    await withSchedule({ every: "2s", input: "Summarise yesterday's tickets" }, async (schedule, taskQueue) => {
      await poll(async () => (await schedule.describe()).runsStarted).toBeGreaterThanOrEqual(1);
      await schedule.pause("maintenance");
      const paused = await schedule.describe();
      expect(paused).toMatchObject({ paused: true, note: "maintenance", nextRuns: [] });

      // A second schedule as a clock: two of its runs are at least 2 s, a whole interval of the paused one.
      const clock = await agent().schedule(scheduleId(), {
        client: harness.client,
        taskQueue,
        every: "2s",
        input: "tick",
      });
      try {
        await poll(async () => (await clock.describe()).runsStarted).toBeGreaterThanOrEqual(2);
      } finally {
        await clock.delete();
      }
      expect((await schedule.describe()).runsStarted).toBe(paused.runsStarted);

      await schedule.trigger();
      await poll(async () => (await schedule.describe()).runsStarted).toBe(paused.runsStarted + 1);
      expect((await schedule.describe()).paused).toBe(true);

      await schedule.unpause("back");
      await poll(async () => (await schedule.describe()).runsStarted).toBeGreaterThan(paused.runsStarted + 1);
      expect((await schedule.describe()).note).toBe("back");

      await schedule.delete();
      await expect(schedule.describe()).rejects.toSatisfy(UnknownScheduleError.isInstance);
      await poll(async () => (await ai.schedules.list({ client: harness.client })).map((s) => s.id)).not.toContain(
        schedule.id,
      );
    });
  });

  it('overlap: "skip" starts no run while the last one is still going (its model answer held), a trigger does, and the schedule goes on once they end', async () => {
    const release = deferred();
    hold = release.promise;
    try {
      await withSchedule({ every: "2s", input: "Summarise yesterday's tickets", overlap: "skip" }, async (schedule) => {
        await poll(async () => (await schedule.describe()).runsSkipped).toBeGreaterThanOrEqual(1);
        const held = await schedule.describe();
        expect(held).toMatchObject({ overlap: "skip", runsStarted: 1 });
        expect(held.runningRuns).toHaveLength(1);
        // A trigger starts a run now even so (Temporal's trigger: allow-all).
        await schedule.trigger();
        await poll(async () => (await schedule.describe()).runsStarted).toBe(2);
        expect((await schedule.describe()).runningRuns).toEqual(held.runningRuns); // the held run is still going
        release.resolve();
        hold = undefined;
        await poll(async () => (await schedule.describe()).runsStarted).toBeGreaterThanOrEqual(3);
        const run = await ai.getRun(held.runningRuns[0]!, { client: harness.client });
        expect((await run.result()).stopReason).toBe("answered");
      });
    } finally {
      release.resolve();
      hold = undefined;
    }
  });

  it("ai.schedules.list() lists the agent schedules with their next runs; get(id).update() changes the timing, input and overlap; backfill starts the runs of a past range", async () => {
    await withSchedule({ cron: "0 9 * * MON-FRI", timezone: "Europe/Paris", input: "Summarise" }, async (schedule) => {
      await poll(async () =>
        (await ai.schedules.list({ client: harness.client })).find((s) => s.id === schedule.id),
      ).toMatchObject({
        agent: "ticket-summary",
        paused: false,
      });
      const listed = (await ai.schedules.list({ client: harness.client })).find((s) => s.id === schedule.id)!;
      expect(listed.nextRuns[0]!.getTime()).toBeGreaterThan(Date.now());
      const before = await schedule.describe();
      expect(before.spec).toMatchObject({
        timezone: "Europe/Paris",
        calendars: [{ hour: [{ start: 9, end: 9, step: 1 }] }],
      });

      const same = ai.schedules.get(schedule.id, { client: harness.client });
      await same.update({
        every: "1 hour",
        input: "Summarise this week",
        overlap: "buffer-one",
        context: { team: "ops" },
      });
      const after = await same.describe();
      expect(after).toMatchObject({
        overlap: "buffer-one",
        input: [{ role: "user", content: "Summarise this week" }],
        context: { team: "ops" },
        spec: { intervals: [{ every: 3_600_000 }], calendars: [], timezone: "Europe/Paris" },
      });

      const to = new Date();
      await same.backfill({ from: new Date(to.getTime() - 2 * 3_600_000 - 1000), to });
      await poll(async () => (await same.describe()).runsStarted).toBeGreaterThanOrEqual(1);
      const run = await ai.getRun((await same.describe()).recentRuns[0]!.workflowId, { client: harness.client });
      expect((await run.result()).messages.find((m) => m.role === "user")).toMatchObject({
        role: "user",
        content: "Summarise this week",
      });
    });
  });
});

describe("bad input: a typed error, and nothing is created", () => {
  const create = (id: string, options: Partial<AgentScheduleOptions>) =>
    agent().schedule(id, {
      client: harness.client,
      taskQueue: "nowhere",
      input: "Summarise",
      ...options,
    } as AgentScheduleOptions);

  it.each([
    [{ cron: "0 9 * *" }, "cron", /has 4 field\(s\)/],
    [{ cron: "61 9 * * *" }, "cron", /the minute 61 is not in 0-59/],
    [{ cron: "0 9 * * MON-FRI", every: "1h" }, "every", /not both/],
    [{}, "cron", /give `cron`/],
    [{ every: "500ms" }, "every", /at least a second/],
    [{ every: "soon" }, "every", /must be a positive duration/],
    [{ cron: "@daily", timezone: "Nowhere/Atlantis" }, "timezone", /IANA time zone/],
    [{ cron: "@daily", overlap: "queue" }, "overlap", /"skip", "buffer-one", "allow-all", "cancel-other"/],
  ])("%j: ScheduleOptionsError naming `%s`, checked before the server is asked", async (options, field, message) => {
    const id = scheduleId();
    const error = await create(id, options as Partial<AgentScheduleOptions>).catch((e: unknown) => e);
    expect(ScheduleOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
    await expect(ai.schedules.get(id, { client: harness.client }).describe()).rejects.toSatisfy(
      UnknownScheduleError.isInstance,
    );
  });

  it("a cron expression the local check lets through but the server rejects: the same ScheduleOptionsError, with the server's reason", async () => {
    expect(cronProblem("0 9 * * MONKEY")).toBeUndefined();
    const id = scheduleId();
    const error = await create(id, { cron: "0 9 * * MONKEY" }).catch((e: unknown) => e);
    expect(ScheduleOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      field: "cron",
      message: expect.stringMatching(/the server rejected it: .*DayOfWeek/i),
    });
    await expect(ai.schedules.get(id, { client: harness.client }).describe()).rejects.toSatisfy(
      UnknownScheduleError.isInstance,
    );
  });

  it("a schedule id that exists: ScheduleExistsError, and the existing schedule is unchanged", async () => {
    const id = scheduleId();
    const first = await create(id, { cron: "@daily", note: "the first" });
    try {
      const error = await create(id, { every: "2s", note: "the second" }).catch((e: unknown) => e);
      expect(ScheduleExistsError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ scheduleId: id, message: expect.stringContaining(`"${id}" already exists`) });
      expect(await first.describe()).toMatchObject({ note: "the first", spec: { intervals: [] } });
    } finally {
      await first.delete();
    }
  });

  it("an unknown schedule: every call throws UnknownScheduleError", async () => {
    const missing = ai.schedules.get("no-such-schedule", { client: harness.client });
    for (const call of [
      () => missing.describe(),
      () => missing.pause(),
      () => missing.trigger(),
      () => missing.delete(),
    ])
      await expect(call()).rejects.toSatisfy(UnknownScheduleError.isInstance);
  });
});

describe("cronProblem", () => {
  it.each([
    "0 9 * * MON-FRI",
    "*/15 * * * *",
    "0 0 9 * * MON 2027",
    "0 9 * JAN-MAR *",
    "@hourly",
    "@every 1h30m",
    "CRON_TZ=Europe/Paris 0 9 * * *",
    "0 9 * * * # note",
    "0 9 * * 7",
  ])("%s reads as the server reads it", (cron) => expect(cronProblem(cron)).toBeUndefined());
  it.each([
    "",
    "0 24 * * *",
    "0 9 0 * *",
    "0 9 * * 8",
    "* * * * * 2500",
    "*/0 * * * *",
    "@every soon",
    "@often",
    "1-2-3 * * * *",
  ])("%j does not", (cron) => expect(cronProblem(cron)).toEqual(expect.any(String)));
});
