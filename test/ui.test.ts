/**
 * Issue 6, item 1, in a real browser: the Temporal Web UI finds a run by its agent-name search
 * attribute, shows the activity summaries of its trips and tool calls, and answers the `trace`
 * query. Headless Chromium (test/support/browser.ts finds one) driven by playwright-core.
 * Screenshots: test-artifacts/ui-runs.png, ui-run.png, ui-trace.png.
 */
import { mkdirSync } from "node:fs";
import { Client, Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startDevServer, startScriptedModel } from "../src/testing/index.js";
import { createAgentWorker } from "../src/worker.js";
import { launchChromium } from "./support/browser.js";
import { connectHarness, taskQueue } from "./support/harness.js";
import { freePort } from "./support/ops-helpers.js";

const ARTIFACTS = new URL("../test-artifacts/", import.meta.url);
const UI_TIMEOUT = 30_000;

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
}

/** Visibility is eventually consistent: wait until the server's list query sees the runs. */
async function untilVisible(client: Client, query: string, count: number): Promise<void> {
  const deadline = Date.now() + UI_TIMEOUT;
  while ((await client.workflow.count(query)).count < count) {
    if (Date.now() > deadline) throw new Error(`visibility never listed ${count} run(s) for ${query}`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // no event to await: poll the index
  }
}

describe("the Temporal Web UI", () => {
  it("finds the run by DurableAgentName, shows its activity summaries, and answers the trace query (screenshots in test-artifacts/)", async () => {
    (await connectHarness()).close(); // installs the suite's quiet runtime once
    const uiPort = await freePort();
    const server = await startDevServer({ uiPort, extraArgs: ["--ui-disable-news-fetch"] });
    const model = await startScriptedModel(({ body }) =>
      body.messages.some((m) => m.role === "tool")
        ? "Done: squats are now lunges."
        : /Swap/.test(String(body.messages.at(-1)?.content))
          ? { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }
          : "Hello.",
    );
    const browser = await launchChromium();
    const connection = await NativeConnection.connect({ address: server.address });
    const clientConnection = await Connection.connect({ address: server.address });
    const client = new Client({ connection: clientConnection });
    try {
      const modelRef = ai.openai("gpt-test", { baseURL: model.baseURL });
      const coach = ai.agent({
        name: "ui-coach",
        model: modelRef,
        tools: [
          ai.tool({
            name: "update_plan",
            input: z.object({ from: z.string(), to: z.string() }),
            execute: async (input) => ({ ok: true, swapped: input }),
          }),
        ],
      });
      const other = ai.agent({ name: "ui-other", model: modelRef });
      const queue = taskQueue();
      const worker = await createAgentWorker({
        agents: [coach, other],
        connection,
        taskQueue: queue,
        workflowBundle: { codePath: inject("workflowBundlePath") },
        searchAttributes: true,
      });
      // The worker stays up while the browser looks: the UI's queries are answered by a worker.
      await worker.runUntil(async () => {
        const result = await coach.run("Swap squats for lunges", { client, taskQueue: queue });
        await other.run("Hi", { client, taskQueue: queue });
        const query = "DurableAgentName = 'ui-coach'";
        await untilVisible(client, query, 1);
        await untilVisible(client, "DurableAgentName = 'ui-other'", 1);

        // 1. The runs list, filtered by the agent-name search attribute through the `query` URL parameter.
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        await page.goto(`${server.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
        const link = page.getByRole("link", { name: result.workflowId, exact: true });
        await link.waitFor({ timeout: UI_TIMEOUT });
        const list = await page.evaluate(() => document.body.innerText);
        expect(list).toContain('DurableAgentName = "ui-coach"');
        expect(list).not.toContain("ui-other-");
        await screenshot(page, "ui-runs.png");

        // 2. The run: an activity summary for each trip and each tool call.
        await link.click();
        await page.waitForFunction(() => document.body.innerText.includes("model gpt-test · trip 2"), undefined, {
          timeout: UI_TIMEOUT,
        });
        const run = await page.evaluate(() => document.body.innerText);
        expect(run).toContain("model.call • model gpt-test · trip 1");
        expect(run).toContain("tool.execute • tool update_plan");
        expect(run).toContain("model.call • model gpt-test · trip 2");
        await screenshot(page, "ui-run.png");

        // 3. Queries → trace: the run's trace, as the UI shows it.
        await page.getByText("Queries", { exact: true }).first().click();
        await page.getByTestId("query-select-button").click();
        await page.getByRole("option", { name: "trace", exact: true }).click();
        await page.getByRole("button", { name: "Run Query" }).click();
        await page.waitForFunction(() => document.body.innerText.includes('"run.stopped"'), undefined, {
          timeout: UI_TIMEOUT,
        });
        const shown = await page.evaluate(() => document.body.innerText);
        for (const event of result.trace) {
          expect(shown).toContain(`"type": "${event.type}"`);
        }
        expect(shown).toContain('"tool": "update_plan"');
        expect(shown).toContain('"status": "ok"');
        expect(shown).toContain('"stopReason": "answered"');
        expect(shown).toContain('"text": "Done: squats are now lunges."');
        await screenshot(page, "ui-trace.png");
      });
    } finally {
      await browser.close();
      await clientConnection.close();
      await connection.close();
      await server.stop();
      await model.close();
    }
  }, 120_000);
});
