/**
 * Issue 41, S1–S4 and T5: the library's HTTP servers (the studio, the chat handler, the codec
 * server) asked over real HTTP, and from pages in Chromium. A state-changing request from another
 * origin, another port of the same host or another site, or with a body that is not JSON, is
 * refused with 403, with or without the studio's token, and the tool it would have approved never
 * runs; a script's JSON without `Origin`, and the server's own page, get through. The studio's
 * page cannot be framed. A path that is not a file is a 404. With Temporal down, the routes answer
 * 503 within 5 s with a sentence for a person, and the address and hint go to the server's log.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ai, createChatHandler, startCodecServer, type Agent } from "../src/index.js";
import type { StudioServer } from "../src/studio/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { launchChromium } from "./support/browser.js";
import { keyring, newKey } from "./support/codec-helpers.js";
import { approvalRequested } from "./support/approval-helpers.js";
import { serveChat } from "./support/chat-http-server.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import { startCuttableNetwork } from "./support/network-cut.js";
import { freePort } from "./support/ops-helpers.js";

const TOKEN = "security-test-token";

let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let running: Promise<void>;
let queue: string;
let careful: Agent;
let open: StudioServer;
let guarded: StudioServer;
let assetsDir: string;
const refunds: string[] = [];

const refund = ai.tool({
  name: "refund",
  input: z.object({ order: z.string() }),
  needsApproval: true,
  execute: async ({ order }) => (refunds.push(order), { refunded: order }),
});

/** A run of `careful` waiting for the refund's approval: its id and the call's. */
async function waitingRefund(order: string): Promise<{ workflowId: string; callId: string }> {
  const handle = await careful.start(`Refund ${order}`, { client: harness.client, taskQueue: queue });
  const { callId } = await approvalRequested(handle);
  return { workflowId: handle.workflowId, callId: callId! };
}

async function status(workflowId: string): Promise<string> {
  return (await harness.client.workflow.getHandle(workflowId).describe()).status.name;
}

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(({ body }) => {
    const last = body.messages.at(-1)!;
    if (last.role === "tool") return "Refunded.";
    const order = /Refund (\S+)/.exec(String(last.content))?.[1];
    return order ? { toolCalls: [{ name: "refund", arguments: { order } }] } : `echo: ${String(last.content)}`;
  });
  careful = ai.agent({
    name: "security-careful",
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    tools: [refund],
  });
  queue = taskQueue();
  worker = await testWorker(harness, [careful], { taskQueue: queue });
  running = worker.run();
  // A page of the studio's own: what its build would serve.
  assetsDir = mkdtempSync(join(tmpdir(), "studio-page-"));
  mkdirSync(join(assetsDir, "assets"));
  writeFileSync(join(assetsDir, "index.html"), "<!doctype html><title>studio</title><p>the page</p>");
  writeFileSync(join(assetsDir, "assets", "app.js"), "console.log('the page');");
  const common = { client: harness.client, agents: [careful], taskQueue: queue, port: 0, assetsDir };
  const dataDir = mkdtempSync(join(tmpdir(), "studio-data-"));
  open = await ai.studio({ ...common, dataDir });
  guarded = await ai.studio({ ...common, dataDir, token: TOKEN });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  worker?.shutdown();
  await running;
  await model?.close();
  await harness?.close();
});

const base = (studio: StudioServer) => `http://127.0.0.1:${studio.port}`;

/** A POST to the studio with a JSON body, and the headers a test gives. */
function studioPost(studio: StudioServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base(studio)}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("state-changing requests from elsewhere (S1, S2)", () => {
  it("the studio without a token refuses an approval and a cancel from another origin, another port of the same host, a cross-site or same-site fetch, or a body that is not JSON: 403 JSON, and the tool never runs; a script's JSON without Origin gets through", async () => {
    const { workflowId, callId } = await waitingRefund("o-1");
    const approve = `/api/runs/${workflowId}/approvals/${callId}`;
    const otherPort = await freePort();
    const approval = { decision: "approve" };
    // The chat panel's route: a message that would start a session whose model refunds o-9.
    const chatPath = `/api/chat/${careful.name}`;
    const refundChat = {
      id: "studio-chat-o-9",
      messages: [{ id: "m", role: "user", parts: [{ type: "text", text: "Refund o-9" }] }],
      trigger: "submit-message",
    };
    const refusals: Array<[string, () => Promise<Response>]> = [
      ["another site", () => studioPost(open, approve, approval, { origin: "http://evil.example" })],
      ["another port", () => studioPost(open, approve, approval, { origin: `http://127.0.0.1:${otherPort}` })],
      [
        "localhost, another port",
        () => studioPost(open, approve, approval, { origin: `http://localhost:${otherPort}` }),
      ],
      ["a sandboxed page", () => studioPost(open, approve, approval, { origin: "null" })],
      ["cross-site", () => studioPost(open, approve, approval, { "sec-fetch-site": "cross-site" })],
      ["same-site", () => studioPost(open, approve, approval, { "sec-fetch-site": "same-site" })],
      ["text/plain", () => studioPost(open, approve, approval, { "content-type": "text/plain;charset=UTF-8" })],
      [
        "form",
        () => studioPost(open, approve, "decision=approve", { "content-type": "application/x-www-form-urlencoded" }),
      ],
      [
        "cancel, text/plain",
        () => studioPost(open, `/api/runs/${workflowId}/cancel`, {}, { "content-type": "text/plain" }),
      ],
      [
        "cancel, another port",
        () => studioPost(open, `/api/runs/${workflowId}/cancel`, {}, { origin: `http://localhost:${otherPort}` }),
      ],
      [
        "dataset, text/plain",
        () =>
          studioPost(open, "/api/datasets", { name: "x", workflowIds: [workflowId] }, { "content-type": "text/plain" }),
      ],
      [
        "eval, another site",
        () => studioPost(open, "/api/evals", { dataset: "x", agent: careful.name }, { origin: "http://evil.example" }),
      ],
      [
        "edit and fork, another site",
        () =>
          studioPost(
            open,
            `/api/runs/${workflowId}/fork`,
            { atTrip: 1, agent: careful.name, instructions: "Refund everything." },
            { origin: "http://evil.example" },
          ),
      ],
      [
        "chat message, another port",
        () => studioPost(open, chatPath, refundChat, { origin: `http://localhost:${otherPort}` }),
      ],
      ["chat message, text/plain", () => studioPost(open, chatPath, refundChat, { "content-type": "text/plain" })],
      [
        "chat stop, another site",
        () =>
          fetch(`${base(open)}${chatPath}/studio-chat-o-9/stream`, {
            method: "DELETE",
            headers: { origin: "http://evil.example" },
          }),
      ],
    ];
    for (const [what, send] of refusals) {
      const response = await send();
      expect([what, response.status]).toEqual([what, 403]);
      expect(response.headers.get("content-type"), what).toMatch(/application\/json/);
      const { error } = (await response.json()) as { error: string };
      expect(error, what).toMatch(/refused|must be JSON/);
    }
    expect(await status(workflowId)).toBe("RUNNING");
    expect(refunds).not.toContain("o-1");
    // no chat session was started
    await expect(
      harness.client.workflow.getHandle(`${careful.name}-session-studio-chat-o-9`).describe(),
    ).rejects.toThrow(/not found/i);
    // The page's own origin (as a browser sends it with a same-origin POST), then a script: JSON and no Origin.
    const own = await studioPost(open, approve, approval, { origin: base(open), "sec-fetch-site": "same-origin" });
    expect(own.status).toBe(200);
    await harness.client.workflow.getHandle(workflowId).result();
    expect(refunds).toContain("o-1");
    const other = await waitingRefund("o-2");
    const script = await studioPost(open, `/api/runs/${other.workflowId}/cancel`, {});
    expect(script.status).toBe(200);
    await expect(harness.client.workflow.getHandle(other.workflowId).result()).resolves.toMatchObject({
      stopReason: "cancelled",
    });
  });

  it("with --token, a page on another port of the same host is refused though the browser sends the studio's cookie (SameSite ignores ports); Bearer JSON from a script gets through", async () => {
    const cookie = (await fetch(`${base(guarded)}/api/meta?token=${TOKEN}`)).headers.get("set-cookie")!.split(";")[0]!;
    const { workflowId } = await waitingRefund("o-3");
    const otherPort = await freePort();
    const cancel = `/api/runs/${workflowId}/cancel`;
    for (const headers of <Record<string, string>[]>[
      { cookie, origin: `http://127.0.0.1:${otherPort}`, "sec-fetch-site": "same-site" },
      { cookie, "content-type": "text/plain" },
      { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" },
    ]) {
      const response = await studioPost(guarded, cancel, {}, headers);
      expect([JSON.stringify(headers), response.status]).toEqual([JSON.stringify(headers), 403]);
    }
    expect(await status(workflowId)).toBe("RUNNING");
    const script = await studioPost(guarded, cancel, {}, { authorization: `Bearer ${TOKEN}` });
    expect(script.status).toBe(200);
    await expect(harness.client.workflow.getHandle(workflowId).result()).resolves.toMatchObject({
      stopReason: "cancelled",
    });
  });

  it("in Chromium: a page on another localhost port that posts no-cors text/plain to approve and to cancel changes nothing; the studio's own page posts its JSON and the tool runs", async () => {
    const { workflowId, callId } = await waitingRefund("o-4");
    const attacker = await pageServer("<!doctype html><title>elsewhere</title>");
    const browser: Browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${attacker.port}/`);
      const studio = `http://localhost:${open.port}`;
      const sent = await page.evaluate(
        async ({ studio, workflowId, callId }) => {
          const post = (path: string, body: string) =>
            fetch(`${studio}${path}`, { mode: "no-cors", method: "POST", body }).then((r) => r.type);
          return [
            await post(`/api/runs/${workflowId}/approvals/${callId}`, JSON.stringify({ decision: "approve" })),
            await post(`/api/runs/${workflowId}/cancel`, "{}"),
          ];
        },
        { studio, workflowId, callId },
      );
      expect(sent).toEqual(["opaque", "opaque"]); // the browser sent both: the studio answered them
      expect(await status(workflowId)).toBe("RUNNING");
      expect(refunds).not.toContain("o-4");
      // The studio's own page: a same-origin POST with JSON (the browser adds Origin and Sec-Fetch-Site itself).
      await page.goto(`${studio}/`);
      const decided = await page.evaluate(async (path) => {
        const response = await fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve" }),
        });
        return response.status;
      }, `/api/runs/${workflowId}/approvals/${callId}`);
      expect(decided).toBe(200);
      await harness.client.workflow.getHandle(workflowId).result();
      expect(refunds).toContain("o-4");
    } finally {
      await browser.close();
      attacker.server.close();
    }
  });

  it("the chat handler refuses a POST or DELETE from another origin or site, or a text/plain body (403 JSON), before it reads anything; the app's own origin and allowedOrigins get through", async () => {
    const handler = createChatHandler({
      agent: careful,
      client: harness.client,
      taskQueue: queue,
      authorize: () => ({ by: "alice" }),
      allowedOrigins: ["https://app.example.com"],
    });
    const app = await serveChat(handler);
    try {
      const message = (id: string, text: string) =>
        JSON.stringify({
          id,
          messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }],
          trigger: "submit-message",
        });
      const post = (body: string, headers: Record<string, string>) =>
        fetch(`${app.url}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        });
      const chatId = `sec-${Date.now()}`;
      const refused = [
        await post(message(chatId, "Hi"), { origin: "http://evil.example" }),
        await post(message(chatId, "Hi"), { origin: `http://127.0.0.1:${await freePort()}` }),
        await post(message(chatId, "Hi"), { "sec-fetch-site": "cross-site" }),
        await post(message(chatId, "Hi"), { "content-type": "text/plain;charset=UTF-8" }),
        await fetch(`${app.url}/api/chat/${chatId}/stream`, {
          method: "DELETE",
          headers: { origin: "http://evil.example" },
        }),
      ];
      for (const response of refused) {
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({
          error: { name: "Forbidden", message: expect.stringMatching(/refused|JSON/) },
        });
      }
      expect(
        await harness.client.workflow
          .getHandle(`${careful.name}-session-${chatId}`)
          .describe()
          .catch((e: Error) => e.name),
      ).toBe("WorkflowNotFoundError");
      const own = await post(message(chatId, "Hi"), { origin: app.url, "sec-fetch-site": "same-origin" });
      expect(own.status).toBe(200);
      expect(await own.text()).toContain("echo: Hi");
      const allowed = await post(message(`${chatId}-b`, "Hello"), {
        origin: "https://app.example.com",
        "sec-fetch-site": "cross-site",
      });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain("echo: Hello");
    } finally {
      await app.close();
    }
  });

  it("the codec server refuses a POST from an origin it does not allow, as it refuses that origin's preflight", async () => {
    const codec = await startCodecServer({
      keys: keyring({ k: newKey() }, "k"),
      port: 0,
      corsOrigins: ["http://localhost:8233"],
    });
    try {
      const post = (origin?: string) =>
        fetch(`${codec.url}/encode`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
          body: JSON.stringify({ payloads: [] }),
        });
      const refused = await post("http://evil.example");
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { message: string }).message).toMatch(/refused.*corsOrigins/);
      expect((await post("http://localhost:8233")).status).toBe(200);
      expect((await post()).status).toBe(200);
    } finally {
      await codec.close();
    }
  });
});

describe("the studio's headers (S3)", () => {
  it("the page and the API send a CSP with frame-ancestors 'none', X-Frame-Options DENY and nosniff; an eval report may be framed by the studio's own compare view only", async () => {
    for (const path of ["/", "/api/meta", "/assets/app.js"]) {
      const response = await fetch(`${base(open)}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
      const csp = response.headers.get("content-security-policy")!;
      expect(csp, path).toMatch(/frame-ancestors 'none'/);
      expect(csp, path).toMatch(/default-src 'self'/);
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
    }
    const report = await fetch(`${base(open)}/api/reports/no-such-eval`);
    expect(report.headers.get("content-security-policy")).toMatch(/frame-ancestors 'self'/);
    expect(report.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  });
});

describe("paths that are not files (T5)", () => {
  it("/favicon.ico and any other path that is not a file answer 404 with a JSON error, not 500; / is the page", async () => {
    for (const path of [
      "/favicon.ico",
      "/runs/abc",
      "/assets/missing.js",
      "/%E0%A4%A",
      "/..%2f..%2fetc/passwd",
      "/assets/",
    ]) {
      const response = await fetch(`${base(open)}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      expect(await response.json(), path).toMatchObject({ error: expect.stringMatching(/No such page/) });
    }
    const page = await fetch(`${base(open)}/`);
    expect(await page.text()).toContain("the page");
  });
});

describe("Temporal down (S4)", () => {
  it("the chat routes and the studio answer 503 within 5 s, with a sentence for a person; the address and the hint for developers are in the server's log only", async () => {
    const [host, port] = harness.address.split(":") as [string, string];
    expect(host).toMatch(/127\.0\.0\.1|localhost/);
    const network = await startCuttableNetwork(Number(port));
    const address = network.url.replace("http://", "");
    const connection = await Connection.connect({ address });
    const client = new Client({ connection });
    const studio = await ai.studio({
      client,
      port: 0,
      assetsDir,
      dataDir: mkdtempSync(join(tmpdir(), "studio-down-")),
    });
    const handler = createChatHandler({ agent: careful, client, taskQueue: queue, authorize: () => ({ by: "alice" }) });
    const app = await serveChat(handler);
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${String(a.cause)}` : String(a))).join(" "));
    });
    try {
      expect((await fetch(`${base(studio)}/api/runs`)).status).toBe(200); // connected, and Temporal is up
      network.cut();
      const body = JSON.stringify({
        id: "down-chat",
        messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "Hi" }] }],
        trigger: "submit-message",
      });
      const asks: Array<[string, () => Promise<Response>]> = [
        [
          "chat POST",
          () => fetch(`${app.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body }),
        ],
        ["chat resume", () => fetch(`${app.url}/api/chat/down-chat/stream`)],
        ["chat messages", () => fetch(`${app.url}/api/chat/down-chat/stream?messages`)],
        ["studio runs", () => fetch(`${base(studio)}/api/runs`)],
        ["studio run", () => fetch(`${base(studio)}/api/runs/some-run`)],
        ["studio cancel", () => studioPost(studio, "/api/runs/some-run/cancel", {})],
      ];
      for (const [what, ask] of asks) {
        const started = performance.now();
        const response = await ask();
        const text = await response.text();
        const elapsed = performance.now() - started;
        expect([what, response.status]).toEqual([what, 503]);
        // The wait is the probe's (TEMPORAL_PROBE_MS, 3 s), not the client's 20 s of retries: timed here for the
        // record, not asserted (a loaded machine stretches any wait; the rule is that tests assert no time limit).
        console.log(`temporal down: ${what} answered 503 in ${elapsed.toFixed(0)} ms`);
        expect(text, what).toMatch(
          what.startsWith("chat")
            ? /The chat service is unavailable\. Try again in a moment\./
            : /cannot reach Temporal\. Try again in a moment\./,
        );
        expect(text, what).not.toContain(address);
        expect(text, what).not.toMatch(/start-dev|TEMPORAL_ADDRESS/);
      }
      // useChat shows a failed POST's body as the error: a sentence, not a stream or JSON.
      const posted = await asks[0]![1]();
      expect(posted.headers.get("content-type")).toMatch(/text\/plain/);
      expect(await posted.text()).toBe("The chat service is unavailable. Try again in a moment.");
      expect(logged.join("\n")).toContain(address);
      expect(logged.join("\n")).toMatch(/temporal server start-dev/);
    } finally {
      spy.mockRestore();
      await app.close();
      await studio.close();
      await connection.close();
      await network.close();
    }
  });
});

/** A node:http server answering every path with `html`: a page on another port. */
async function pageServer(html: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_, response) => response.writeHead(200, { "content-type": "text/html" }).end(html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
