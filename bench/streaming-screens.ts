/**
 * A screenshot of the Temporal Web UI's view of a streamed run (issue 23's before/after):
 * `npx tsx --conditions=durable-agent-source bench/streaming-screens.ts <out.png>` starts a dev
 * server with its UI, streams a 2-trip run with one tool call (answers at 40 chunks a second, as
 * a local model writes), and saves the run's Timeline tab (and its Event History as `-events.png`). Chromium from
 * `@sparticuz/chromium`, driven by playwright-core.
 */
import { createServer } from "node:net";
import { NativeConnection } from "@temporalio/worker";
import { chromium } from "playwright-core";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startDevServer, startScriptedModel } from "../src/testing/index.js";

const out = process.argv[2] ?? "streaming.png";
const freePort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};
const TEXT =
  "Lunges work the same muscles as squats with less load on the knees, so the swap keeps your plan balanced. ";
const server = await startDevServer({ uiPort: await freePort(), extraArgs: ["--ui-disable-news-fetch"] });
const model = await startScriptedModel(
  ({ body }) =>
    body.messages.some((m) => m.role === "tool")
      ? TEXT + "Done: squats are now lunges."
      : { text: TEXT, toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
  { chunkSize: 4, chunksPerSecond: 40 },
);
const coach = ai.agent({
  name: "coach",
  model: ai.openai("gpt-test", { baseURL: model.baseURL }),
  tools: [
    ai.tool({
      name: "update_plan",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async (input) => ({ ok: true, swapped: input }),
    }),
  ],
});
const connection = await NativeConnection.connect({ address: server.address });
const worker = await ai.worker({ agents: [coach], connection, taskQueue: "screens" });
await worker.runUntil(async () => {
  const stream = await coach.stream("Swap squats for lunges", { client: server.env.client, taskQueue: "screens" });
  let workflowId = "";
  for await (const event of stream) if (event.type === "run.finished") workflowId = event.result.workflowId;
  const { runId } = await server.env.client.workflow.getHandle(workflowId).describe();
  const { default: packaged } = await import("@sparticuz/chromium");
  const browser = await chromium.launch({
    executablePath: await packaged.executablePath(),
    args: ["--no-sandbox", "--disable-gpu"],
    headless: true,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
  await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}/${runId}/history`);
  await page.waitForFunction(() => document.body.innerText.includes("model.call"), undefined, { timeout: 60_000 });
  await page.screenshot({ path: out.replace(/\.png$/, "-events.png"), fullPage: false });
  await page.getByText("Timeline", { exact: true }).first().click();
  await page.waitForTimeout(2000); // the timeline draws after the events load
  await page.screenshot({ path: out, fullPage: true });
  const history = await server.env.client.workflow.getHandle(workflowId).fetchHistory();
  console.log(`${out}: ${workflowId}, ${history.events?.length} history events`);
  await browser.close();
});
await connection.close();
await model.close();
await server.stop();
