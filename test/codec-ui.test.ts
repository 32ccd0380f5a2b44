/**
 * Issue 9, item 2, in a browser: the Temporal UI shows an encrypted run in plaintext through the
 * codec server, while the server itself holds only ciphertext. Headless Chromium from
 * test/support/browser.ts (the system's, or the one @sparticuz/chromium ships), driven by playwright-core.
 */
import { mkdirSync } from "node:fs";
import { Client, Connection } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { describe, expect, inject, it } from "vitest";
import { ai, encryptedDataConverter, startCodecServer } from "../src/index.js";
import { startDevServer, startScriptedModel } from "../src/testing/index.js";
import { createAgentWorker } from "../src/worker.js";
import { keyring, meta, newKey, payloadsOf, storedText } from "./support/codec-helpers.js";
import { launchChromium } from "./support/browser.js";
import { connectHarness, taskQueue } from "./support/harness.js";
import { freePort } from "./support/ops-helpers.js";

const ARTIFACTS = new URL("../test-artifacts/", import.meta.url);

describe("the Temporal UI through the codec server", () => {
  it("shows an encrypted run's input and reply in plaintext (screenshot in test-artifacts/codec-ui.png)", async () => {
    (await connectHarness()).close(); // installs the suite's quiet runtime once
    const keys = keyring({ ui: newKey() }, "ui");
    const dataConverter = encryptedDataConverter(keys);
    const uiPort = await freePort();
    const uiOrigins = [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`];
    const codecRequests: string[] = [];
    const codec = await startCodecServer({
      keys,
      port: 0,
      corsOrigins: uiOrigins,
      authorize: (req) => (codecRequests.push(`${req.method} ${req.url} from ${req.headers.origin}`), true),
    });
    const server = await startDevServer({
      uiPort,
      extraArgs: ["--ui-codec-endpoint", codec.url, "--ui-disable-news-fetch"],
    });
    const model = await startScriptedModel(["UI-REPLY: lunges it is, go easy on that knee."]);
    const browser = await launchChromium();
    const connection = await NativeConnection.connect({ address: server.address });
    const clientConnection = await Connection.connect({ address: server.address });
    try {
      const agent = ai.agent({ name: "codec-ui", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
      const queue = taskQueue();
      const worker = await createAgentWorker({
        agents: [agent],
        connection,
        taskQueue: queue,
        workflowBundle: { codePath: inject("workflowBundlePath") },
        dataConverter,
      });
      const client = new Client({ connection: clientConnection, dataConverter });
      const input = "UI-MESSAGE: swap squats for lunges, my knee hurts";
      const result = await worker.runUntil(agent.run(input, { client, taskQueue: queue }));

      // What the server holds, and what the UI gets before the codec: ciphertext only.
      const history = await new Client({ connection: clientConnection }).workflow
        .getHandle(result.workflowId, result.runId)
        .fetchHistory();
      expect(
        payloadsOf(history).filter(({ payload }) => meta(payload, "encoding") === "binary/encrypted").length,
      ).toBeGreaterThan(3);
      const stored = storedText(history);
      expect(stored).not.toContain("UI-MESSAGE");
      expect(stored).not.toContain("UI-REPLY");

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${server.uiUrl}/namespaces/default/workflows/${result.workflowId}/${result.runId}/history`);
      await page.waitForFunction(
        () => document.body.innerText.includes("UI-MESSAGE") && document.body.innerText.includes("UI-REPLY"),
        undefined,
        { timeout: 30_000 },
      );
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: new URL("codec-ui.png", ARTIFACTS).pathname, fullPage: true });
      const text = await page.evaluate(() => document.body.innerText);
      expect(text).toContain(input);
      expect(text).toContain(result.reply);
      expect(codecRequests).toContainEqual(
        expect.stringMatching(/^POST \/decode[? ].*from http:\/\/(localhost|127\.0\.0\.1):\d+$/),
      ); // the browser asked the codec server
    } finally {
      await browser.close();
      await clientConnection.close();
      await connection.close();
      await server.stop();
      await model.close();
      await codec.close();
    }
  }, 120_000);
});
