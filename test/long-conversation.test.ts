import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { decodedHistory, runChain } from "./support/history-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

describe("history grows linearly", () => {
  it("300 trips with 4 KB tool results (a conversation over 2 MB) run to completion, each message written at most once per run's history", async () => {
    const TRIPS = 300;
    const model = await startScriptedModel(({ index }) =>
      index < TRIPS
        ? { toolCalls: [0, 1].map((i) => ({ name: "fetch_page", arguments: { trip: index + 1, i } })) }
        : "Read them all.",
    );
    const fetchPage = ai.tool({
      name: "fetch_page",
      input: z.object({ trip: z.number(), i: z.number() }),
      execute: async ({ trip, i }) => ({ page: `<page ${trip}.${i}>`.padEnd(4096, "x") }),
    });
    const agent = ai.agent({
      name: "long-reader",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [fetchPage],
      maxTrips: TRIPS + 1,
    });
    const { result, chain } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Read every page", { client: harness.client, taskQueue });
      const firstRunId = (await handle.workflow.describe()).runId;
      const result = await handle.result();
      return { result, chain: await runChain(harness.client, handle.workflowId, firstRunId) };
    });
    await model.close();

    expect(result).toMatchObject({ stopReason: "answered", trips: TRIPS + 1, reply: "Read them all." });
    expect(result.messages).toHaveLength(1 + TRIPS * 3 + 1);
    expect(result.toolCalls).toHaveLength(TRIPS * 2);
    expect(Buffer.byteLength(JSON.stringify(result.messages))).toBeGreaterThan(2 * 1024 * 1024);
    // The model saw the whole conversation (all but its own last answer) on its last call, though no payload carried it.
    expect(model.requests.at(-1)!.body.messages).toHaveLength(result.messages.length - 1);
    expect(chain.length).toBeGreaterThan(1); // the default thresholds suggested continue-as-new on the way

    for (const runId of chain) {
      const text = decodedHistory(await harness.client.workflow.getHandle(result.workflowId, runId).fetchHistory());
      const counts = new Map<string, number>();
      for (const match of text.matchAll(/<page (\d+\.\d+)>/g)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
      expect(Math.max(...counts.values())).toBe(1);
    }
  }, 300_000);
});
