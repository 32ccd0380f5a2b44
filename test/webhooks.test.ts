/**
 * Issue 42: `createWebhookHandler` served by a real Node HTTP server (@hono/node-server), posted to
 * with fetch, starting runs on a worker of the suite's dev server. An event delivered twice (and
 * again after its run ended) starts one run, and every delivery gets its workflow id; a bad or
 * missing signature starts none (401); a browser's Origin is refused (403); a body that is not
 * JSON, or an event without its key, is a 400, never a 500.
 */
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ai,
  createWebhookHandler,
  hmacSha256Signature,
  hmacSha256Verifier,
  WebhookOptionsError,
  type WebhookHandler,
} from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

const SECRET = "whsec-test";
let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(() => "Triaged: a bug in the login page.");
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

interface Issue {
  delivery: string;
  issue: { title: string };
  team?: string;
}

const agent = () => ai.agent({ name: "triage", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });

/** Serves the handler on loopback while `fn` runs, with a worker for the agent. */
async function withWebhook(fn: (url: string, handler: WebhookHandler) => Promise<void>): Promise<void> {
  const triage = agent();
  await withWorker(harness, [triage], async ({ taskQueue }) => {
    const warnings: string[] = [];
    const handler = createWebhookHandler({
      agent: triage,
      client: harness.client,
      taskQueue,
      verify: hmacSha256Verifier({ secret: SECRET }),
      idempotencyKey: (body) => (body as Issue).delivery,
      input: (body) => `Triage this issue: ${(body as Issue).issue.title}`,
      context: (body) => ({ team: (body as Issue).team ?? "web" }),
      logger: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
    });
    const server: ServerType = await new Promise((resolve) => {
      const s = serve({ fetch: handler.POST, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/github`, handler);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

/** Posts `body` signed with `secret` (or with the given headers). */
function post(url: string, body: string, headers: Record<string, string> = {}, secret = SECRET): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-hub-signature-256": hmacSha256Signature(secret, body),
      ...headers,
    },
    body,
  });
}

const event = (delivery: string, title = "Login fails") => JSON.stringify({ delivery, issue: { title } });

describe("createWebhookHandler", () => {
  it("an event delivered twice, and again after its run ended, starts one run: each delivery gets 202 with the first run's id", async () => {
    await withWebhook(async (url) => {
      const delivery = randomUUID();
      const first = await post(url, event(delivery));
      expect(first.status).toBe(202);
      const { workflowId } = (await first.json()) as { workflowId: string };
      expect(workflowId).toBe(`triage-webhook-${delivery}`);

      const again = await post(url, event(delivery, "Login fails (redelivered)"));
      expect(again.status).toBe(202);
      expect(await again.json()).toEqual({ workflowId });

      const run = await ai.getRun(workflowId, { client: harness.client });
      const result = await run.result();
      expect(result.reply).toBe("Triaged: a bug in the login page.");
      expect(result.messages.find((m) => m.role === "user")).toMatchObject({
        content: "Triage this issue: Login fails",
      });
      const { runId } = await run.workflow.describe();

      const late = await post(url, event(delivery, "Login fails (a day later)"));
      expect(late.status).toBe(202);
      expect(await late.json()).toEqual({ workflowId });
      // A second run under this id would be the latest run of it: it is still the first.
      expect((await run.workflow.describe()).runId).toBe(runId);
      const history = await run.workflow.fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.firstExecutionRunId).toBe(runId);
    });
  });

  it("the run gets the context the event gives", async () => {
    await withWebhook(async (url) => {
      const delivery = randomUUID();
      const response = await post(url, JSON.stringify({ delivery, issue: { title: "Slow search" }, team: "search" }));
      const { workflowId } = (await response.json()) as { workflowId: string };
      const run = await ai.getRun(workflowId, { client: harness.client });
      await run.result();
      const { events } = await run.workflow.fetchHistory();
      const payload = events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      expect(JSON.parse(Buffer.from(payload.data!).toString())).toMatchObject({
        agent: "triage",
        context: { team: "search" },
      });
    });
  });

  it.each([
    ["a signature by another secret", { "x-hub-signature-256": hmacSha256Signature("not-the-secret", event("x")) }],
    ["no signature", { "x-hub-signature-256": "" }],
    ["a signature that is not hex", { "x-hub-signature-256": "sha256=zz" }],
  ])("%s: 401, and no run starts", async (_, headers) => {
    await withWebhook(async (url) => {
      const delivery = randomUUID();
      const response = await post(url, event(delivery), headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { name: "Unauthorized", message: expect.any(String) } });
      await expect(harness.client.workflow.getHandle(`triage-webhook-${delivery}`).describe()).rejects.toMatchObject({
        name: "WorkflowNotFoundError",
      });
    });
  });

  it("a body changed after signing does not verify (the HMAC is over the raw bytes)", async () => {
    await withWebhook(async (url) => {
      const delivery = randomUUID();
      const response = await post(url, event(delivery, "Login fails "), {
        "x-hub-signature-256": hmacSha256Signature(SECRET, event(delivery, "Login fails")),
      });
      expect(response.status).toBe(401);
    });
  });

  it("malformed requests get 4xx with a message, never 500, and start nothing: not JSON, an event without its key, a browser's Origin, a body over the limit", async () => {
    await withWebhook(async (url) => {
      const notJson = await post(url, "{ not json");
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({
        error: { name: "WebhookRequestError", message: expect.stringContaining("not JSON") },
      });

      const noKey = await post(url, JSON.stringify({ issue: { title: "x" } }));
      expect(noKey.status).toBe(400);
      expect(await noKey.json()).toMatchObject({ error: { message: expect.stringContaining("idempotency key") } });

      const noTitle = await post(url, JSON.stringify({ delivery: randomUUID() }));
      expect(noTitle.status).toBe(400);
      expect(await noTitle.json()).toMatchObject({
        error: { message: expect.stringContaining("input could not be read") },
      });

      const delivery = randomUUID();
      const fromBrowser = await post(url, event(delivery), { origin: "https://evil.example" });
      expect(fromBrowser.status).toBe(403);
      await expect(harness.client.workflow.getHandle(`triage-webhook-${delivery}`).describe()).rejects.toMatchObject({
        name: "WorkflowNotFoundError",
      });

      const large = JSON.stringify({ delivery: randomUUID(), issue: { title: "x".repeat(2 * 1024 * 1024) } });
      expect((await post(url, large)).status).toBe(413);
    });
  });

  it("bad options throw WebhookOptionsError at creation", () => {
    const triage = agent();
    const base = { agent: triage, verify: () => true, input: () => "x", idempotencyKey: () => "k" };
    expect(() => createWebhookHandler({ ...base, verify: undefined as never })).toThrow(WebhookOptionsError);
    expect(() => createWebhookHandler({ ...base, idempotencyKey: "delivery" as never })).toThrow(/idempotencyKey/);
    expect(() => hmacSha256Verifier({ secret: "" })).toThrow(/secret/);
  });
});
