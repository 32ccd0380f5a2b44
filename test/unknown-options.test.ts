/** Issue 18, item 3: an unknown key in ai.agent(), ai.tool() or ai.openai() options names the key and the closest known one. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentOptionsError, ai } from "../src/index.js";
import { closestKey } from "../src/options/known-keys.js";
import { AGENT_OPTION_KEYS } from "../src/agent/options.js";

const noop = ai.tool({ name: "noop", input: z.object({}), execute: async () => ({ ok: true }) });
const base = { model: ai.openai("gpt-test"), tools: [noop] };

function thrown(fn: () => unknown): AgentOptionsError {
  try {
    fn();
  } catch (error) {
    expect(AgentOptionsError.isInstance(error), String(error)).toBe(true);
    return error as AgentOptionsError;
  }
  throw new Error("expected an AgentOptionsError");
}

describe("unknown keys in ai.agent() options", () => {
  it("a typo (actWhenAsk) names the key and the closest known one", () => {
    const error = thrown(() =>
      ai.agent({ ...base, actWhenAsk: { intents: ["swap"], requiredTools: ["noop"] } } as never),
    );
    expect(error).toMatchObject({ field: "actWhenAsk", suggestion: "actWhenAsked" });
    expect(error.message).toBe(
      "Invalid option `actWhenAsk`: ai.agent() has no option `actWhenAsk`; did you mean `actWhenAsked`?",
    );
  });

  it.each([
    ["Instructions", "instructions"],
    ["maxTrip", "maxTrips"],
    ["backstop", "backstops"],
    ["onToolRefused", "onToolRefusal"],
    ["limit", "limits"],
  ])("%s → did you mean %s", (key, suggestion) => {
    expect(thrown(() => ai.agent({ ...base, [key]: 1 } as never))).toMatchObject({ field: key, suggestion });
  });

  it("a key near no option lists the options instead of guessing", () => {
    const error = thrown(() => ai.agent({ ...base, colour: "blue" } as never));
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toBe(
      `Invalid option \`colour\`: ai.agent() has no option \`colour\` (its options are ${Object.keys(AGENT_OPTION_KEYS)
        .map((k) => `\`${k}\``)
        .join(", ")})`,
    );
  });

  it.each([
    [
      "actWhenAsked.maxRepromts",
      { actWhenAsked: { intents: ["swap"], requiredTools: ["noop"], maxRepromts: 2 } },
      "maxReprompts",
    ],
    ["onToolRefusal.retry", { onToolRefusal: { retry: 2 } }, "retries"],
    [
      "backstops[0].detekt",
      { backstops: [{ name: "b", detekt: () => true, detect: () => true, run: () => undefined }] },
      "detect",
    ],
    ["timeouts.heartbeats", { timeouts: { heartbeats: "5 seconds" } }, "heartbeat"],
    ["limits.toolCallPerAnswer", { limits: { toolCallPerAnswer: 3 } }, "toolCallsPerAnswer"],
  ])("nested: %s", (field, options, suggestion) => {
    const error = thrown(() => ai.agent({ ...base, ...options } as never));
    expect(error).toMatchObject({ field, suggestion });
    expect(error.message).toContain(`did you mean \`${suggestion}\`?`);
  });

  it("every known key is accepted", () => {
    const agent = ai.agent({
      name: "all-options",
      model: ai.openai("gpt-test"),
      instructions: "Be brief.",
      tools: [noop],
      maxTrips: 3,
      timeouts: { model: "1 minute", tool: "30 seconds", heartbeat: "10 seconds" },
      actWhenAsked: { intents: ["swap"], requiredTools: ["noop"], require: "any", hint: "Call it.", maxReprompts: 1 },
      onToolRefusal: { retries: 1, hint: () => "again", isRefusal: () => false },
      backstops: [{ name: "b", phase: "after", detect: () => false, run: () => undefined }],
      limits: { toolCallsPerAnswer: 4, toolInputBytes: 1024, toolOutputBytes: 4096 },
    });
    expect(agent.name).toBe("all-options");
  });
});

describe("unknown keys in ai.tool() options", () => {
  it.each([
    ["excute", "execute"],
    ["needApproval", "needsApproval"],
    ["descripton", "description"],
  ])("%s → did you mean %s", (key, suggestion) => {
    const error = thrown(() =>
      ai.tool({ name: "t", input: z.object({}), execute: async () => 1, [key]: true } as never),
    );
    expect(error).toMatchObject({ field: key, suggestion });
    expect(error.message).toBe(
      `Invalid option \`${key}\`: ai.tool() "t" has no option \`${key}\`; did you mean \`${suggestion}\`?`,
    );
  });
});

describe("unknown keys in ai.openai() settings", () => {
  it.each([
    ["baseUrl", "baseURL"],
    ["api_key", "apiKey"],
    ["temprature", "temperature"],
    ["max_tokens", "maxTokens"],
  ])("%s → did you mean %s", (key, suggestion) => {
    const error = thrown(() => ai.openai("gpt-test", { [key]: "x" } as never));
    expect(error).toMatchObject({ field: key, suggestion });
    expect(error.message).toBe(
      `Invalid option \`${key}\`: ai.openai("gpt-test") has no option \`${key}\`; did you mean \`${suggestion}\`?`,
    );
  });

  it("known settings pass", () => {
    expect(
      ai.openai("gpt-test", { baseURL: "http://localhost:8080/v1", apiKey: "k", temperature: 0, maxTokens: 100 })
        .modelId,
    ).toBe("gpt-test");
  });
});

describe("closestKey (fastest-levenshtein, case-insensitive)", () => {
  it("suggests within 2 edits (3 for keys of 5+ characters, or a third of the key), else nothing", () => {
    expect(closestKey("actWhenAsk", ["actWhenAsked", "tools"])).toBe("actWhenAsked");
    expect(closestKey("TOOLS", ["actWhenAsked", "tools"])).toBe("tools");
    expect(closestKey("zzz", ["actWhenAsked", "tools"])).toBeUndefined();
    expect(closestKey("x", [])).toBeUndefined();
  });
});
