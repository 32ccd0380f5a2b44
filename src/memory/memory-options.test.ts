import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentOptionsError } from "../errors.js";
import { defineMemory, type MemoryOptions } from "./define-memory.js";
import { mergeWorkingMemory } from "./merge.js";
import { checkUser } from "./user-id.js";
import type { MemoryStore } from "./memory-store.js";

const store = Object.fromEntries(
  ["open", "addMessages", "recall", "getWorkingMemory", "setWorkingMemory", "forget", "inspect", "close"].map((m) => [
    m,
    async () => {},
  ]),
) as unknown as MemoryStore;
const embedder = {
  specificationVersion: "v3",
  provider: "p",
  modelId: "e",
  doEmbed: async () => ({ embeddings: [] }),
} as never;
const field = (options: unknown) => {
  try {
    defineMemory(options as MemoryOptions);
  } catch (error) {
    return AgentOptionsError.isInstance(error) ? (error as AgentOptionsError).field : String(error);
  }
  return "accepted";
};

describe("ai.memory() options", () => {
  it("names the first bad field", () => {
    expect(field({ store, embedder })).toBe("accepted");
    expect(field({ store: {}, embedder })).toBe("memory.store");
    expect(field({ store, embedder: 3 })).toBe("memory.embedder");
    expect(field({ store, embedder, recal: {} })).toBe("memory.recal");
    expect(field({ store, embedder, recall: { topK: 0 } })).toBe("memory.recall.topK");
    expect(field({ store, embedder, recall: { messageRange: -1 } })).toBe("memory.recall.messageRange");
    expect(field({ store, embedder, recall: { scope: "team" } })).toBe("memory.recall.scope");
    expect(field({ store, embedder, workingMemory: {} })).toBe("memory.workingMemory");
    expect(field({ store, embedder, workingMemory: { template: "x", schema: z.object({}) } })).toBe(
      "memory.workingMemory",
    );
    expect(field({ store, embedder, workingMemory: { schema: "x" } })).toBe("memory.workingMemory.schema");
  });

  it("defaults recall to topK 3, messageRange 1, scope user", () => {
    expect(defineMemory({ store, embedder }).spec).toEqual({
      workingMemory: false,
      recall: { topK: 3, messageRange: 1, scope: "user" },
    });
  });
});

describe("a user id", () => {
  it("is 1-256 characters without control characters", () => {
    expect(() => checkUser("alice@example.com")).not.toThrow();
    expect(() => checkUser("x".repeat(256))).not.toThrow();
    expect(() => checkUser("x".repeat(257))).toThrow(/257 characters/);
    expect(() => checkUser("")).toThrow(/empty/);
    expect(() => checkUser("a\u0000b")).toThrow(/control characters/);
    expect(() => checkUser(42)).toThrow(/number/);
  });
});

describe("mergeWorkingMemory", () => {
  it("keeps both sessions' lines in a markdown document, where each added them", () => {
    const base = "# Profile\n- Injuries:\n- Goals:";
    const theirs = "# Profile\n- Injuries: left knee\n- Goals:";
    const ours = "# Profile\n- Injuries:\n- Goals: 10k\n- Diet: vegetarian";
    expect(mergeWorkingMemory(base, ours, theirs)).toBe(
      "# Profile\n- Injuries: left knee\n- Goals: 10k\n- Diet: vegetarian",
    );
  });

  it("merges objects by key and arrays by item; one value changed by both: the later update wins", () => {
    const base = { injuries: ["knee"], goal: "5k", coach: "ann" };
    const theirs = { injuries: ["knee", "shoulder"], goal: "5k", coach: "bo" };
    const ours = { injuries: [], goal: "10k", coach: "cy" };
    expect(mergeWorkingMemory(base, ours, theirs)).toEqual({ injuries: ["shoulder"], goal: "10k", coach: "cy" });
  });
});
