/**
 * Issue 32's example app in a real browser: examples/chat (Next.js App Router, `useChat`,
 * `createChatHandler`, `DurableChatTransport`) built for production with `next build`, served
 * with `next start`, its agents served by a `durable-agent worker` child process, the model the
 * paced scripted model (examples/chat/script.ts), Temporal the suite's dev server, driven by the
 * suite's Chromium (playwright-core). The eight checks of the issue, each its own test, with
 * screenshots in test-artifacts/chat/.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { Client, Connection } from "@temporalio/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { defined } from "../src/core/defined.js";
import { ai } from "../src/index.js";
import { AFTER_TOOL, chatScript, LONG_STORY, PACE, RESEARCH, STORY, SWAP_OFFER } from "../examples/chat/script.js";
import { launchChromium } from "./support/browser.js";
import {
  ensureChatExample,
  routeTracedFiles,
  startChatServer,
  startChatWorker,
  type ChatExampleBuild,
  type ExampleProcess,
} from "./support/chat-example.js";
import { taskQueue } from "./support/harness.js";
import { startCuttableNetwork } from "./support/network-cut.js";
import { activityCounts, freePort } from "./support/ops-helpers.js";

const ARTIFACTS = new URL("../test-artifacts/chat/", import.meta.url);
/** The example's chat agent: a chat is its session `<agent>-session-<chatId>`. */
const AGENT = "chat-assistant";

let build: ChatExampleBuild;
let model: ScriptedModel;
let worker: ExampleProcess;
/** The output of the workers stopped so far (check 4 replaces the worker). */
let stoppedWorkersOutput = "";
const allWorkerOutput = () => stoppedWorkersOutput + worker.output();
let server: ExampleProcess;
let browser: Browser;
let client: Client;
let base: string;
let port: number;
let env: Record<string, string>;

beforeAll(async () => {
  build = ensureChatExample();
  console.log(
    `examples/chat: package build ${build.rootBuildMs} ms, npm ci ${build.installMs} ms, packed copy ${build.refreshMs} ms, next build ${build.nextBuildMs} ms (0: up to date)`,
  );
  model = await startScriptedModel(chatScript, PACE);
  env = {
    TEMPORAL_ADDRESS: inject("temporalAddress"),
    TEMPORAL_TASK_QUEUE: taskQueue(),
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: "scripted",
  };
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  [worker, server, browser] = await Promise.all([
    startChatWorker(inject("workflowBundlePath"), env),
    startChatServer(port, env),
    launchChromium(),
  ]);
  client = new Client({ connection: await Connection.connect({ address: inject("temporalAddress") }) });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 900_000);

beforeEach(() => {
  opened = [];
});

// A failed check leaves a screenshot of each of its pages, and their consoles and the servers' output go to the log.
afterEach(async ({ task }) => {
  if (task.result?.state !== "fail") return;
  const name = task.name
    .slice(0, 40)
    .replace(/[^a-z0-9]+/gi, "-")
    .replace(/-$/, "");
  for (const [i, { page, console: lines }] of opened.entries()) {
    if (page.isClosed()) continue;
    await page.screenshot({ path: new URL(`failed-${name}-${i}.png`, ARTIFACTS).pathname, fullPage: true });
    console.log(`page ${i} (${page.url()}):\n${lines.join("\n")}`);
  }
  console.log(`next start:\n${server.output().slice(-4000)}\nworker:\n${worker.output().slice(-4000)}`);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.stop(), worker?.stop()]);
  await model?.close();
  await client?.connection.close();
});

// ---- the page, as a user sees it -------------------------------------------------------------

/** The pages of the current check and what their consoles said, for the report of a check that fails. */
let opened: Array<{ page: Page; console: string[] }> = [];

async function userContext(user: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  await context.addCookies([{ name: "user", value: user, url: base }]);
  context.on("page", (page) => {
    const seen = { page, console: [] as string[] };
    page.on("console", (message) => seen.console.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => seen.console.push(`pageerror: ${error.message}`));
    opened.push(seen);
  });
  return context;
}

function chatUrl(chatId: string, durable: boolean, origin: string): string {
  return `${origin}/?chat=${chatId}${durable ? "&transport=durable" : ""}`;
}

/** Opens a chat (at `origin`, the app's server by default) and waits until its history has loaded and `useChat` is ready for a message. */
async function openChat(context: BrowserContext, chatId: string, durable = false, origin = base): Promise<Page> {
  const page = await context.newPage();
  await page.goto(chatUrl(chatId, durable, origin));
  await page.getByTestId("status").waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("input").fill(text);
  await page.getByTestId("send").click();
}

const assistant = (page: Page) => page.locator('[data-testid="message"][data-role="assistant"]');

/** The text parts of the chat's last assistant message, joined. */
function lastAnswer(page: Page): Promise<string> {
  return page.evaluate(() => {
    const messages = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
    const last = messages[messages.length - 1];
    return last
      ? Array.from(last.querySelectorAll(':scope > [data-testid="text"]'))
          .map((p) => p.textContent ?? "")
          .join("")
      : "";
  });
}

/** Waits until the last answer has at least `chars` characters (mid-answer). */
async function untilAnswerHas(page: Page, chars: number): Promise<void> {
  await page.waitForFunction((min) => {
    const messages = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
    const last = messages[messages.length - 1];
    const text = last
      ? Array.from(last.querySelectorAll(':scope > [data-testid="text"]'))
          .map((p) => p.textContent ?? "")
          .join("")
      : "";
    return text.length >= min;
  }, chars);
}

/** Waits until `useChat` is done with the answer (status `ready`) and its last text part ends with `ending`. */
async function untilAnswered(page: Page, ending: string): Promise<void> {
  await page.waitForFunction(
    (end) => {
      if (document.querySelector('[data-testid="status"]')?.getAttribute("data-status") !== "ready") return false;
      const texts = document.querySelectorAll('[data-testid="message"][data-role="assistant"] > [data-testid="text"]');
      return (texts[texts.length - 1]?.textContent ?? "").endsWith(end);
    },
    ending,
    { timeout: 120_000 },
  );
}

/** The parts of each message as the page shows them, in order: `role: kind kind ...`. */
function shownParts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('[data-testid="message"]')).map(
      (message) =>
        `${message.getAttribute("data-role")}: ${Array.from(message.querySelectorAll(":scope > [data-testid]"))
          .map((part) =>
            part.getAttribute("data-testid") === "tool"
              ? `tool(${part.getAttribute("data-tool")}:${part.getAttribute("data-state")})`
              : part.getAttribute("data-testid"),
          )
          .join(" ")}`,
    ),
  );
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
}

const session = (chatId: string) => client.workflow.getHandle(`${AGENT}-session-${chatId}`);

/** The approval decisions the chat's session recorded: its trace's `approval` events other than the requests, with who decided (`by`). */
async function approvalDecisions(chatId: string): Promise<Array<{ tool: string; outcome: string; by?: string }>> {
  const trace = await (await ai.getRun(`${AGENT}-session-${chatId}`, { client })).trace();
  return trace.flatMap((event) =>
    event.type === "approval" && event.outcome !== "requested"
      ? [{ tool: event.tool, outcome: event.outcome, ...defined({ by: event.by }) }]
      : [],
  );
}

let chats = 0;
const newChatId = () => `chat-${process.pid}-${Date.now()}-${++chats}`;

// ---- the checks ------------------------------------------------------------------------------

describe("examples/chat: the production build", () => {
  it("next build succeeds with no serverExternalPackages, and the routes' traced files hold no Temporal core bridge", async () => {
    const config = readFileSync(new URL("../examples/chat/next.config.ts", import.meta.url), "utf8");
    const code = config.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ""); // the config's code, not its comments
    expect(code).toContain("nextConfig");
    expect(code).not.toContain("serverExternalPackages");
    const traces = routeTracedFiles();
    expect([...traces.keys()].sort()).toEqual([
      ".next/server/app/api/chat/[id]/stream/route.js.nft.json",
      ".next/server/app/api/chat/route.js.nft.json",
    ]);
    for (const [trace, files] of traces) {
      const bridge = files.filter((file) => /@temporalio[/\\](core-bridge|worker)[/\\]|\.node$/.test(file));
      expect(bridge, `${trace} traces the core bridge or the worker`).toEqual([]);
      // durable-agent is bundled into the route's chunks (as any library is), not traced as an external package.
      const chunks = files.filter((file) => file.includes("/.next/server/chunks/") && file.endsWith(".js"));
      expect(chunks.some((file) => readFileSync(file, "utf8").includes("the URL is not {api}/{chatId}/stream"))).toBe(
        true,
      );
      const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
      console.log(`${trace}: ${files.length} traced files, ${(bytes / 1e6).toFixed(1)} MB`);
    }
  });
});

describe("examples/chat in a real browser", () => {
  it("1. a message streams token by token", async () => {
    const context = await userContext("alice");
    const page = await openChat(context, newChatId());
    // Every length the answer's text passes through, as the page renders it.
    await page.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { lengths: number[] }).lengths = lengths;
      new MutationObserver(() => {
        const texts = document.querySelectorAll(
          '[data-testid="message"][data-role="assistant"] > [data-testid="text"]',
        );
        const length = Array.from(texts).reduce((sum, p) => sum + (p.textContent ?? "").length, 0);
        if (length !== lengths.at(-1)) lengths.push(length);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await send(page, "Tell me a story");
    await untilAnswerHas(page, 300);
    await screenshot(page, "1-streaming.png");
    await untilAnswered(page, "The end.");
    expect(await lastAnswer(page)).toBe(STORY);
    const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
    expect(lengths.length).toBeGreaterThan(20); // many renders, not one block of text
    expect(lengths.every((length, i) => i === 0 || length > lengths[i - 1]!)).toBe(true);
    expect(lengths.at(-1)).toBe(STORY.length);
    await context.close();
  });

  it("2. a reload mid-answer restores the chat and resumes the answer in flight, nothing twice, nothing missing", async () => {
    const context = await userContext("alice");
    const chatId = newChatId();
    const page = await openChat(context, chatId);
    await send(page, "Hello");
    await untilAnswered(page, "swap an exercise.");
    await send(page, "Tell me a story");
    await untilAnswerHas(page, 200);
    await page.reload();
    await untilAnswerHas(page, 1); // the answer in flight, resumed
    const resumedAt = (await lastAnswer(page)).length;
    await screenshot(page, "2-reload.png");
    await untilAnswered(page, "The end.");
    expect(resumedAt).toBeLessThan(STORY.length); // the reload came mid-answer
    expect(await lastAnswer(page)).toBe(STORY);
    expect(await shownParts(page)).toEqual(["user: text", "assistant: text", "user: text", "assistant: text"]);
    // And a second reload shows the finished chat from its durable history, the same.
    await page.reload();
    await untilAnswered(page, "The end.");
    expect(await shownParts(page)).toEqual(["user: text", "assistant: text", "user: text", "assistant: text"]);
    expect(await lastAnswer(page)).toBe(STORY);
    await context.close();
  });

  it("3. the network cut for 5 s mid-answer: DurableChatTransport reconnects and the answer completes once", async () => {
    // The page talks to the app through a proxy whose network the test cuts: open connections drop, new ones are refused.
    const network = await startCuttableNetwork(port);
    const context = await userContext("alice");
    const chatId = newChatId();
    const page = await openChat(context, chatId, true, network.url);
    const resumes: number[] = [];
    let cutAt: number | undefined;
    page.on("request", (request) => {
      if (cutAt !== undefined && request.method() === "GET" && /\/api\/chat\/[^/?]+\/stream$/.test(request.url()))
        resumes.push(Date.now() - cutAt);
    });
    await send(page, "Tell me a long story");
    await untilAnswerHas(page, 150);
    network.cut();
    cutAt = Date.now();
    const shownAtCut = (await lastAnswer(page)).length;
    await new Promise((resolve) => setTimeout(resolve, 5_000)); // the cut itself: five seconds offline
    const triedWhileCut = network.refused;
    network.restore();
    await untilAnswered(page, LONG_STORY.slice(-40));
    await screenshot(page, "3-network-cut.png");
    expect(shownAtCut).toBeLessThan(LONG_STORY.length); // the cut came mid-answer
    expect(triedWhileCut).toBeGreaterThan(0); // it tried to reconnect while the network was down
    expect(resumes.some((after) => after >= 5_000)).toBe(true); // and reconnected by itself once it was back
    expect(await lastAnswer(page)).toBe(LONG_STORY);
    expect(await shownParts(page)).toEqual(["user: text", "assistant: text"]);
    // Once: the run went on through the cut, one model call, not a second answer.
    expect((await activityCounts(session(chatId), "model.call")).scheduled).toBe(1);
    await context.close();
    await network.close();
  });

  it("4. a worker SIGKILL mid-answer, then a new worker: the page shows the retried answer, not two mixed", async () => {
    const context = await userContext("alice");
    const chatId = newChatId();
    const page = await openChat(context, chatId, true);
    await send(page, "Tell me a story");
    await untilAnswerHas(page, 150);
    await worker.stop("SIGKILL");
    stoppedWorkersOutput += worker.output();
    worker = await startChatWorker(inject("workflowBundlePath"), env);
    await untilAnswered(page, "The end.");
    expect(await lastAnswer(page)).toBe(STORY);
    expect(await assistant(page).count()).toBe(1);
    await screenshot(page, "4-worker-crash.png");
    // The answer was retried: a second attempt of the model call, in the chat's durable history.
    const { attempts } = await activityCounts(session(chatId), "model.call");
    expect(Math.max(...attempts)).toBeGreaterThan(1);
    await page.reload();
    await untilAnswered(page, "The end.");
    expect(await lastAnswer(page)).toBe(STORY);
    await context.close();
  });

  for (const durable of [true, false]) {
    const transport = durable ? "DurableChatTransport" : "the default transport";
    it(`5. an approval requested in tab A and approved in tab B (${transport}): the tool runs once, approved by the cookie's user, and tab A shows it ${durable ? "live" : "after a reload"}`, async () => {
      const context = await userContext("alice");
      const chatId = newChatId();
      const tabA = await openChat(context, chatId, durable);
      await send(tabA, "Please refund order 42");
      const waitingA = tabA.locator('[data-testid="tool"][data-tool="refund"][data-state="approval-requested"]');
      await waitingA.waitFor();
      const tabB = await openChat(context, chatId, durable);
      const waitingB = tabB.locator('[data-testid="tool"][data-tool="refund"][data-state="approval-requested"]');
      await waitingB.waitFor(); // the pending approval, from the chat's durable history
      await waitingB.getByTestId("approve").click();
      await untilAnswered(tabB, AFTER_TOOL.refund);
      await tabB
        .locator('[data-testid="tool"][data-tool="refund"][data-state="output-available"]')
        .getByTestId("tool-output")
        .waitFor();
      if (!durable) await tabA.reload();
      await untilAnswered(tabA, AFTER_TOOL.refund);
      const outputA = tabA.locator('[data-testid="tool"][data-tool="refund"][data-state="output-available"]');
      expect(await outputA.getByTestId("tool-output").textContent()).toContain('"orderId":"42"');
      if (durable) await screenshot(tabA, "5-approval.png");
      // The tool ran once: one refund on the worker (its log line), for this chat's call.
      const refunds = [...allWorkerOutput().matchAll(/refund: order 42 refunded \(rf-(\S+)\)/g)].map((m) => m[1]!);
      expect(refunds.filter((key) => key.startsWith(`${AGENT}-session-${chatId}/`))).toHaveLength(1);
      expect(await approvalDecisions(chatId)).toEqual([{ tool: "refund", outcome: "approved", by: "alice" }]);
      await context.close();
    });
  }

  it("6. user B opening user A's chat id gets 404, and cannot read its stream or approve in it", async () => {
    const alice = await userContext("alice");
    const chatId = newChatId();
    const tabA = await openChat(alice, chatId);
    await send(tabA, "Please refund order 42");
    await tabA.locator('[data-testid="tool"][data-tool="refund"][data-state="approval-requested"]').waitFor();
    const approvalRequest = await tabA.evaluate(async (id) => {
      const response = await fetch(`/api/chat/${id}/stream?messages`);
      return { status: response.status, messages: (await response.json()) as unknown[] };
    }, chatId);
    expect(approvalRequest.status).toBe(200);

    const bob = await userContext("bob");
    const tabB = await openChat(bob, chatId);
    await expect.poll(() => tabB.getByTestId("history-status").getAttribute("data-status")).toBe("none");
    expect(await tabB.getByTestId("history-status").textContent()).toContain("404");
    expect(await tabB.locator('[data-testid="message"]').count()).toBe(0);
    await screenshot(tabB, "6-other-user.png");
    const answers = await tabB.evaluate(
      async ({ id, messages }) => {
        const decided = structuredClone(messages) as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
        const last = decided.at(-1)!;
        for (const part of last.parts)
          if (part.state === "approval-requested") {
            part.state = "approval-responded";
            part.approval = { ...(part.approval as object), approved: true };
          }
        const post = await fetch("/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id, messages: decided, trigger: "submit-message" }),
        });
        const stream = await fetch(`/api/chat/${id}/stream`);
        const history = await fetch(`/api/chat/${id}/stream?messages`);
        const stop = await fetch(`/api/chat/${id}/stream`, { method: "DELETE" });
        return {
          post: post.status,
          stream: stream.status,
          history: history.status,
          stop: stop.status,
          body: await history.text(),
        };
      },
      { id: chatId, messages: approvalRequest.messages },
    );
    expect(answers).toMatchObject({ post: 404, stream: 404, history: 404, stop: 404 });
    expect(answers.body).not.toContain("refund");
    // Alice's chat is untouched: still waiting for her approval.
    await tabA.reload();
    await tabA.locator('[data-testid="tool"][data-tool="refund"][data-state="approval-requested"]').waitFor();
    expect(await approvalDecisions(chatId)).toEqual([]);
    await Promise.all([alice.close(), bob.close()]);
  });

  it("7. a sub-agent's events show nested, and a reload during the sub-agent resumes correctly", async () => {
    const context = await userContext("alice");
    const page = await openChat(context, newChatId(), true);
    await send(page, "Do some research on interval training");
    const nested = page.locator(
      '[data-testid="message"][data-role="assistant"] [data-testid="tool"][data-tool="chat-researcher"] [data-testid="subagent"][data-agent="chat-researcher"]',
    );
    await page.waitForFunction(() => {
      const text = document.querySelector('[data-testid="subagent"] [data-testid="subagent-text"]')?.textContent ?? "";
      return text.length >= 100;
    });
    await page.reload();
    await nested.waitFor();
    await screenshot(page, "7-subagent.png");
    await untilAnswered(page, AFTER_TOOL["chat-researcher"]);
    expect(await nested.getByTestId("subagent-text").allTextContents()).toEqual([RESEARCH]);
    expect(await nested.getAttribute("data-status")).not.toBe("running");
    expect(await shownParts(page)).toEqual(["user: text", "assistant: tool(chat-researcher:output-available) text"]);
    await context.close();
  });

  it("8. an actWhenAsked re-prompt mid-chat: the first answer stays, a marker says why, the tool call and second answer follow in the same message, and a reload shows the same", async () => {
    const context = await userContext("alice");
    const page = await openChat(context, newChatId(), true);
    await send(page, "Hello");
    await untilAnswered(page, "swap an exercise.");
    await send(page, "Swap squats for lunges");
    await untilAnswered(page, AFTER_TOOL.update_plan);
    const expected = [
      "user: text",
      "assistant: text",
      "user: text",
      "assistant: text reprompt tool(update_plan:output-available) text",
    ];
    expect(await shownParts(page)).toEqual(expected);
    const last = assistant(page).last();
    expect(await last.getByTestId("text").allTextContents()).toEqual([SWAP_OFFER, AFTER_TOOL.update_plan]);
    expect(await last.getByTestId("reprompt").textContent()).toContain("act-when-asked");
    await screenshot(page, "8-reprompt.png");
    await page.reload();
    await untilAnswered(page, AFTER_TOOL.update_plan);
    expect(await shownParts(page)).toEqual(expected);
    expect(await assistant(page).last().getByTestId("reprompt").textContent()).toContain("act-when-asked");
    await context.close();
  });
});
