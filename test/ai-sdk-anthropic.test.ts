/**
 * Issue 31 on the Anthropic path: `@ai-sdk/anthropic` (spec v4) and AI SDK 6's (v3) against the
 * scripted Anthropic Messages server. The trip loop with parallel tools and reasoning carried to
 * the next trip on the wire, the contract, approvals, sub-agents and handoffs, streaming, usage
 * with cache tokens and cost, typed output, images in tool results, and errors.
 */
import { createAnthropic as createAnthropicV3 } from "@ai-sdk/anthropic-v3";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai, LoadAPIKeyError, ModelApiError, type RunResult, type StreamedRunEvent } from "../src/index.js";
import {
  startScriptedAnthropic,
  startScriptedModel,
  type ScriptedAnthropic,
  type ScriptedProviderTurn,
} from "../src/testing/index.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { stdioToolset } from "./support/mcp-helpers.js";
import {
  agentOfClaude,
  assistantBlocks,
  claude,
  claudeAgent,
  thinking,
  thinkingClaude,
} from "./support/ai-sdk-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const swap = (to: string, extra: Partial<Exclude<ScriptedProviderTurn, string>> = {}): ScriptedProviderTurn =>
  ({ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }], ...extra }) as ScriptedProviderTurn;

async function onClaude<T>(
  script: ScriptedProviderTurn[] | Parameters<typeof startScriptedAnthropic>[0],
  fn: (server: ScriptedAnthropic) => Promise<T>,
): Promise<T> {
  const server = await startScriptedAnthropic(script, { chunkSize: 6 });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

async function run(
  agent: ReturnType<typeof ai.agent>,
  input: string,
  options: { streamText?: boolean } = {},
): Promise<RunResult> {
  return withWorker(harness, [agent], ({ taskQueue }) =>
    agent.run(input, { client: harness.client, taskQueue, ...options }),
  );
}

describe("the trip loop on Claude", () => {
  for (const streamText of [false, true]) {
    it(`parallel tool calls, with thinking and a redacted block carried to the next trip as Anthropic needs them (${streamText ? "doStream" : "doGenerate"})`, async () => {
      await onClaude(
        [
          {
            reasoning: [
              { text: "Swap both.", signature: "sig-1" },
              { redacted: true, signature: "redacted-1" },
            ],
            toolCalls: [
              { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
              { name: "update_plan", arguments: { from: "rows", to: "pullups" } },
            ],
          },
          { reasoning: { text: "Both done.", signature: "sig-2" }, text: "Swapped both." },
        ],
        async (server) => {
          const calls: unknown[] = [];
          const agent = claudeAgent("claude-loop", server.baseURL, { tools: [updatePlanTool(calls)] });
          const result = await run(agent, "Swap squats and rows", { streamText });
          expect(result.reply).toBe("Swapped both.");
          expect(calls).toHaveLength(2);
          expect(server.requests.map((r) => r.stream)).toEqual([streamText, streamText]);
          const second = server.requests[1]!.body;
          expect(second.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
          expect(second.messages[1]).toEqual({
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Swap both.", signature: "sig-1" },
              { type: "redacted_thinking", data: "redacted-1" },
              {
                type: "tool_use",
                id: "toolu_scripted_0_0",
                name: "update_plan",
                input: { from: "squats", to: "lunges" },
              },
              {
                type: "tool_use",
                id: "toolu_scripted_0_1",
                name: "update_plan",
                input: { from: "rows", to: "pullups" },
              },
            ],
          });
          expect(second.messages[2]).toEqual({
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_scripted_0_0", content: '{"ok":true}' },
              { type: "tool_result", tool_use_id: "toolu_scripted_0_1", content: '{"ok":true}' },
            ],
          });
          // The answer as the run records it: the reasoning parts with their provider metadata.
          expect(result.messages[1]).toMatchObject({
            role: "assistant",
            content: null,
            reasoning: [
              { text: "Swap both.", providerMetadata: { anthropic: { signature: "sig-1" } } },
              { text: "", providerMetadata: { anthropic: { redactedData: "redacted-1" } } },
            ],
          });
        },
      );
    });
  }

  it("streams text deltas (not thinking) to subscribers, as the openai path does", async () => {
    await onClaude(
      [
        {
          reasoning: { text: "Let me think about legs.", signature: "s" },
          text: "Leg day: squats, lunges, deadlifts.",
        },
      ],
      async (server) => {
        const agent = claudeAgent("claude-stream", server.baseURL);
        const events: StreamedRunEvent[] = [];
        await withWorker(harness, [agent], async ({ taskQueue }) => {
          for await (const event of await agent.stream("Plan my leg day", { client: harness.client, taskQueue }))
            events.push(event);
        });
        const deltas = events.flatMap((e) => (e.type === "text.delta" ? [e.text] : []));
        expect(deltas.join("")).toBe("Leg day: squats, lunges, deadlifts.");
        expect(server.requests[0]!.stream).toBe(true);
      },
    );
  });

  it("an AI SDK 6 Anthropic model (specificationVersion v3) carries thinking the same way", async () => {
    await onClaude([swap("lunges", { reasoning: { text: "Swap.", signature: "sig-v3" } }), "Done."], async (server) => {
      const model = createAnthropicV3({ baseURL: server.baseURL, apiKey: "sk-ant-test" })("claude-sonnet-4-5");
      expect(model.specificationVersion).toBe("v3");
      const agent = ai.agent({
        name: "claude-v3",
        model: ai.model(model, { providerOptions: { anthropic: { thinking } } }),
        tools: [updatePlanTool()],
      });
      const result = await run(agent, "Swap squats for lunges", { streamText: true });
      expect(result.reply).toBe("Done.");
      expect(assistantBlocks(server.requests[1]!.body)[0]![0]).toEqual({
        type: "thinking",
        thinking: "Swap.",
        signature: "sig-v3",
      });
    });
  });
});

describe("the model runs on the worker only (item 1)", () => {
  it("the workflow bundle holds no AI SDK code, and the workflow names each model call by the model id the worker described", async () => {
    const bundle = readFileSync(inject("workflowBundlePath"), "utf8");
    expect(bundle).not.toContain("@ai-sdk/");
    expect(bundle).not.toContain("doGenerate");
    await onClaude([{ text: "Leg day: squats." }], async (server) => {
      const agent = claudeAgent("worker-only", server.baseURL);
      const summaries = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Plan my leg day", { client: harness.client, taskQueue });
        await handle.result();
        const { events } = await handle.workflow.fetchHistory();
        return (events ?? []).flatMap((e) =>
          e.userMetadata?.summary?.data ? [Buffer.from(e.userMetadata.summary.data).toString()] : [],
        );
      });
      expect(summaries.some((summary) => summary.includes("model claude-sonnet-4-5 · trip 1"))).toBe(true);
    });
  });
});

describe("the history of a run on Claude", () => {
  it("replays: input with a file part, an answer with thinking and two calls (one returning an image), a streamed answer (fixture ai-sdk-reasoning)", async () => {
    const png = Buffer.alloc(32, 5).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      input: z.object({}),
      execute: async () => ({ content: [{ type: "image", data: png, mimeType: "image/png" }] }),
    });
    await onClaude(
      [
        {
          reasoning: [
            { text: "Swap, then look.", signature: "sig-fixture" },
            { redacted: true, signature: "redacted-fixture" },
          ],
          toolCalls: [
            { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
            { name: "snapshot", arguments: {} },
          ],
        },
        { reasoning: { text: "Done.", signature: "sig-fixture-2" }, text: "Swapped; the plan shows lunges." },
      ],
      async (server) => {
        const agent = claudeAgent("claude-fixture", server.baseURL, { tools: [updatePlanTool(), snapshot] });
        const pdf = `data:application/pdf;base64,${Buffer.from("%PDF-1.4 plan").toString("base64")}`;
        await withWorker(harness, [agent], async ({ taskQueue }) => {
          const handle = await agent.start(
            [
              {
                role: "user",
                content: [
                  { type: "text", text: "Swap squats for lunges in this plan" },
                  { type: "file", file: { file_data: pdf, filename: "plan.pdf" } },
                ],
              },
            ],
            { client: harness.client, taskQueue, streamText: true },
          );
          const result = await handle.result();
          expect(result.reply).toBe("Swapped; the plan shows lunges.");
          await replaysAndKeeps(handle, "ai-sdk-reasoning");
        });
        const first = server.requests[0]!.body.messages[0]!;
        expect(first.content).toEqual([
          { type: "text", text: "Swap squats for lunges in this plan" },
          expect.objectContaining({
            type: "document",
            source: {
              type: "base64",
              media_type: "application/pdf",
              data: Buffer.from("%PDF-1.4 plan").toString("base64"),
            },
          }),
        ]);
      },
    );
  });
});

describe("recorded runs on Claude", () => {
  it("a run recorded on ai.openai() (messages without parts) forks at trip 2 onto a Claude agent: its tool call and result reach Claude as tool_use and tool_result", async () => {
    const chat = await startScriptedModel([
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" }, id: "call_old" }] },
      "Old reply.",
    ]);
    try {
      await onClaude(["Claude's reply."], async (server) => {
        const recorder = ai.agent({
          name: "openai-recorded",
          model: ai.openai("gpt-test", { baseURL: chat.baseURL }),
          tools: [updatePlanTool()],
        });
        const claudeCoach = ai.agent({
          name: "claude-forked",
          model: claude(server.baseURL),
          tools: [updatePlanTool()],
        });
        const fork = await withWorker(harness, [recorder, claudeCoach], async ({ taskQueue }) => {
          const recorded = await recorder.run("Swap squats for lunges", { client: harness.client, taskQueue });
          expect(recorded.messages[1]).toEqual({
            role: "assistant",
            content: null,
            toolCalls: [{ id: "call_old", name: "update_plan", arguments: '{"from":"squats","to":"lunges"}' }],
          });
          return (
            await ai.fork(recorded.workflowId, { atTrip: 2, agent: "claude-forked", client: harness.client, taskQueue })
          ).result();
        });
        expect(fork.reply).toBe("Claude's reply.");
        expect(server.requests[0]!.body.messages).toEqual([
          { role: "user", content: [{ type: "text", text: "Swap squats for lunges" }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "call_old", name: "update_plan", input: { from: "squats", to: "lunges" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "call_old", content: '{"ok":true}' }] },
        ]);
      });
    } finally {
      await chat.close();
    }
  });
});

describe("the contract on Claude", () => {
  it("actWhenAsked re-prompts an answer that offers instead of acting; the re-prompt and the thinking before it reach Claude", async () => {
    await onClaude(
      [
        { reasoning: { text: "Offer it.", signature: "sig-offer" }, text: "Want me to swap squats for lunges?" },
        swap("lunges"),
        "Done: swapped.",
      ],
      async (server) => {
        const agent = claudeAgent("claude-act", server.baseURL, {
          tools: [updatePlanTool()],
          actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] },
        });
        const result = await run(agent, "Swap squats for lunges");
        expect(result.reply).toBe("Done: swapped.");
        expect(result.trace.filter((e) => e.type === "reprompt").map((e) => e.type === "reprompt" && e.kind)).toEqual([
          "act-when-asked",
        ]);
        const second = server.requests[1]!.body.messages;
        expect(second[1]).toEqual({
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Offer it.", signature: "sig-offer" },
            { type: "text", text: "Want me to swap squats for lunges?" },
          ],
        });
        expect(JSON.stringify(second[2])).toMatch(/update_plan/);
      },
    );
  });

  it("onToolRefusal retries once with the refusal's reason; backstops run once and re-prompt", async () => {
    const ran: string[] = [];
    await onClaude([swap("moonwalks"), "Sorry, I cannot.", swap("lunges"), "AUDIT", "Done."], async (server) => {
      const agent = claudeAgent("claude-refusal", server.baseURL, {
        tools: [updatePlanTool()],
        onToolRefusal: "retry-once-with-hint",
        backstops: [
          {
            name: "audit",
            detect: (turn) => turn.reply === "AUDIT",
            run: () => (ran.push("audit"), { prompt: "Audit done; answer the user." }),
          },
        ],
      });
      const result = await run(agent, "Swap squats for moonwalks");
      expect(result.reply).toBe("Done.");
      expect(result.trace.filter((e) => e.type === "reprompt").map((e) => e.type === "reprompt" && e.kind)).toEqual([
        "refusal-retry",
        "backstop",
      ]);
      expect(ran).toEqual(["audit"]);
      expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toMatch(/moonwalks is not in the library/);
    });
  });

  it("a tool that needs approval waits for it, and runs once approved", async () => {
    await onClaude(
      [swap("lunges", { reasoning: { text: "Needs approval.", signature: "sig-ap" } }), "Done."],
      async (server) => {
        const executed: unknown[] = [];
        const tool = ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          needsApproval: true,
          execute: async (input) => (executed.push(input), { ok: true }),
        });
        const agent = claudeAgent("claude-approval", server.baseURL, { tools: [tool] });
        const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
          const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
          for await (const event of handle.stream()) {
            if (event.type === "approval" && event.outcome === "requested") {
              await handle.approve(event.callId, { by: "coach" });
              break;
            }
          }
          return handle.result();
        });
        expect(result.reply).toBe("Done.");
        expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
        expect(assistantBlocks(server.requests[1]!.body)[0]![0]).toEqual({
          type: "thinking",
          thinking: "Needs approval.",
          signature: "sig-ap",
        });
      },
    );
  });

  it("sub-agents (asTool) and handoffs run on Claude, each agent's reasoning going back to its own calls", async () => {
    const turns: Record<string, ScriptedProviderTurn[]> = {
      triage: [
        {
          reasoning: { text: "Ask billing.", signature: "sig-triage-1" },
          toolCalls: [{ name: "billing", arguments: { message: "Refund order 7?" } }],
        },
        {
          reasoning: { text: "Hand off.", signature: "sig-triage-2" },
          toolCalls: [{ name: "transfer_to_support", arguments: {} }],
        },
      ],
      billing: [{ reasoning: { text: "Refundable.", signature: "sig-billing" }, text: "Order 7 is refundable." }],
      support: ["Your refund is on its way."],
    };
    const next = new Map<string, number>();
    await onClaude(
      (request) => {
        const agent = agentOfClaude(request);
        const n = next.get(agent) ?? 0;
        next.set(agent, n + 1);
        return turns[agent]?.[n] ?? { error: "bad-request", message: `no turn ${n} for ${agent}` };
      },
      async (server) => {
        const billing = claudeAgent("billing", server.baseURL);
        const support = claudeAgent("support", server.baseURL);
        const triage = claudeAgent("triage", server.baseURL, {
          tools: [billing.asTool({ description: "Ask billing" })],
          handoffs: [support],
        });
        const result = await withWorker(harness, [triage], ({ taskQueue }) =>
          triage.run("Refund order 7", { client: harness.client, taskQueue }),
        );
        expect(result.reply).toBe("Your refund is on its way.");
        expect(result.agent).toBe("support");
        const triageSecond = server.requests.filter((r) => agentOfClaude(r) === "triage")[1]!.body;
        expect(assistantBlocks(triageSecond)[0]![0]).toEqual({
          type: "thinking",
          thinking: "Ask billing.",
          signature: "sig-triage-1",
        });
        expect(JSON.stringify(triageSecond.messages.at(-1))).toContain("Order 7 is refundable.");
        const supportFirst = server.requests.find((r) => agentOfClaude(r) === "support")!.body;
        expect(JSON.stringify(supportFirst)).toContain("sig-triage-2");
      },
    );
  });
});

describe("usage, cost and budgets on Claude", () => {
  it("input, output, cache-read, cache-write and reasoning tokens; cost with cache prices; a cost budget stops the run", async () => {
    const usage = {
      inputTokens: 1000,
      outputTokens: 200,
      cacheReadTokens: 600,
      cacheWriteTokens: 300,
      reasoningTokens: 50,
    };
    await onClaude([swap("lunges", { usage }), swap("rows", { usage }), "Done."], async (server) => {
      const pricing = {
        inputPerMillion: 3,
        outputPerMillion: 15,
        cachedInputPerMillion: 0.3,
        cacheWritePerMillion: 3.75,
      };
      const agent = claudeAgent(
        "claude-usage",
        server.baseURL,
        { tools: [updatePlanTool()], budget: { maxCostUsd: 0.006 } },
        { pricing },
      );
      const result = await run(agent, "Swap squats");
      // One trip: 100 uncached × $3 + 600 read × $0.3 + 300 written × $3.75 + 200 out × $15, per million.
      const perTrip = (100 * 3 + 600 * 0.3 + 300 * 3.75 + 200 * 15) / 1e6;
      const answered = result.trace.filter((e) => e.type === "model.answered");
      expect(answered[0]!.type === "model.answered" && answered[0]!.usage).toEqual({
        inputTokens: 1000,
        outputTokens: 200,
        totalTokens: 1200,
        cachedInputTokens: 600,
        cacheWriteTokens: 300,
        reasoningTokens: 50,
        costUsd: perTrip,
      });
      expect(result.stopReason).toBe("budget");
      expect(result.usage).toMatchObject({
        modelCalls: 2,
        cachedInputTokens: 1200,
        cacheWriteTokens: 600,
        reasoningTokens: 100,
        costUsd: Math.round(2 * perTrip * 1e9) / 1e9,
      });
    });
  });
});

describe("typed output and images on Claude", () => {
  it("typed output: Claude's native structured output (output_config.format), parsed", async () => {
    await onClaude([{ json: { exercise: "lunges", sets: 3 } }], async (server) => {
      const agent = ai.agent({
        name: "claude-output",
        model: claude(server.baseURL),
        output: z.object({ exercise: z.string(), sets: z.number() }),
      });
      const result = await run(agent, "Pick one");
      expect(result.output).toEqual({ exercise: "lunges", sets: 3 });
      expect(server.requests[0]!.body.output_config).toMatchObject({ format: { type: "json_schema" } });
    });
  });

  it("typed output on an older Claude: through the json tool the provider package forces, streamed", async () => {
    await onClaude([{ json: { exercise: "rows", sets: 4 } }], async (server) => {
      const agent = ai.agent({
        name: "claude-output-old",
        model: claude(server.baseURL, "claude-3-haiku-20240307"),
        output: z.object({ exercise: z.string(), sets: z.number() }),
      });
      const result = await run(agent, "Pick one", { streamText: true });
      expect(result.output).toEqual({ exercise: "rows", sets: 4 });
      expect(server.requests[0]!.body.tools).toEqual([expect.objectContaining({ name: "json" })]);
    });
  });

  it("an image a tool returns goes to Claude as an image block inside its tool_result, not as base64 text", async () => {
    const png = Buffer.alloc(48, 9).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      input: z.object({}),
      execute: async () => ({
        content: [
          { type: "text", text: "The plan:" },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      }),
    });
    await onClaude([{ toolCalls: [{ name: "snapshot", arguments: {} }] }, "Three exercises."], async (server) => {
      const agent = ai.agent({ name: "claude-image", model: claude(server.baseURL), tools: [snapshot] });
      await run(agent, "Show me the plan");
      const result = server.requests[1]!.body.messages[2]!;
      expect(result).toEqual({
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_scripted_0_0",
            content: [
              { type: "text", text: "The plan:" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
            ],
          },
        ],
      });
    });
  });
});

describe("MCP tools on Claude", () => {
  it("an MCP server's tools are offered to Claude; its image comes back inside the tool_result, its resource as text", async () => {
    await onClaude(
      [{ toolCalls: [{ name: "show_chart", arguments: { bytes: 64 } }] }, "Twelve sets on Monday."],
      async (server) => {
        const agent = ai.agent({ name: "claude-mcp", model: claude(server.baseURL), tools: [stdioToolset()] });
        const result = await run(agent, "Show my weekly volume");
        expect(result.reply).toBe("Twelve sets on Monday.");
        expect(server.requests[0]!.body.tools).toEqual(
          expect.arrayContaining([expect.objectContaining({ name: "show_chart" })]),
        );
        const toolResult = (
          server.requests[1]!.body.messages[2]!.content as Array<{ content: Array<Record<string, unknown>> }>
        )[0]!.content;
        expect(toolResult.map((block) => block.type)).toEqual(["text", "image", "text"]);
        expect(toolResult[1]).toEqual({
          type: "image",
          source: { type: "base64", media_type: "image/png", data: Buffer.alloc(64, 7).toString("base64") },
        });
        expect(String(toolResult[2]!.text)).toContain("plan://week/volume.csv");
      },
    );
  });
});

describe("errors on Claude", () => {
  it("429 with Retry-After and 529 overloaded are retried; a stream cut mid-answer and an error event mid-stream are retried", async () => {
    await onClaude(
      [
        { error: "rate-limit", retryAfter: 1 },
        { error: "overloaded" },
        { text: "Leg day: squats and lunges.", cutAfterEvents: 4 },
        { text: "Leg day: squats.", failAfterEvents: 3, failWith: "overloaded" },
        "Leg day: squats.",
      ],
      async (server) => {
        const agent = ai.agent({ name: "claude-retried", model: claude(server.baseURL) });
        const result = await run(agent, "Plan my leg day", { streamText: true });
        expect(result.reply).toBe("Leg day: squats.");
        expect(server.requests).toHaveLength(5);
      },
    );
  });

  it("a 400 and a 401 fail the run at once with ModelApiError and their status", async () => {
    for (const [kind, status, message] of [
      ["bad-request", 400, /API error 400: messages: at least one message is required/],
      ["auth", 401, /API error 401: invalid x-api-key/],
    ] as const) {
      await onClaude([{ error: kind }], async (server) => {
        const agent = ai.agent({ name: `claude-${status}`, model: claude(server.baseURL) });
        const error = await run(agent, "Hi").catch((e: unknown) => e);
        expect(ModelApiError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ status, modelId: "claude-sonnet-4-5" });
        expect((error as Error).message).toMatch(message);
        expect(server.requests).toHaveLength(1);
      });
    }
  });

  it("a missing Anthropic key: one line naming what to set, and no request sent", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await onClaude(["Hi."], async (server) => {
        const { createAnthropic } = await import("@ai-sdk/anthropic");
        const agent = ai.agent({
          name: "claude-no-key",
          model: createAnthropic({ baseURL: server.baseURL })("claude-sonnet-4-5"),
        });
        const error = await run(agent, "Hi").catch((e: unknown) => e);
        expect(LoadAPIKeyError.isInstance(error)).toBe(true); // as docs/any-model.md says; a ModelApiError too
        expect(ModelApiError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ variable: "ANTHROPIC_API_KEY", modelId: "claude-sonnet-4-5" });
        expect((error as Error).message).toBe(
          `No API key for model "claude-sonnet-4-5": set ANTHROPIC_API_KEY on the worker, or pass apiKey to the provider.`,
        );
        expect(server.requests).toHaveLength(0);
      });
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("a setting Claude does not take with thinking on (temperature) fails the run naming it", async () => {
    await onClaude(["Hi."], async (server) => {
      const agent = ai.agent({ name: "claude-temp", model: thinkingClaude(server.baseURL, { temperature: 0.5 }) });
      const error = await run(agent, "Hi").catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "AgentOptionsError", field: "temperature" });
      expect((error as Error).message).toMatch(/temperature is not supported when thinking is enabled/);
      expect(server.requests).toHaveLength(0); // caught before the request: the provider's getArgs warned
    });
  });
});
