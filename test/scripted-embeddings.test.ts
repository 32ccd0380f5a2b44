/**
 * The scripted embedding server (`durable-agent/testing`): OpenAI's `POST /v1/embeddings` for the AI
 * SDK's `@ai-sdk/openai` through `embedMany`, and for the `openai` package (base64 vectors); similar
 * texts near, others far; errors in OpenAI's envelope.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { cosineSimilarity, embed, embedMany } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedEmbedding, startScriptedEmbeddings, type ScriptedEmbeddings } from "../src/testing/index.js";

let server: ScriptedEmbeddings;
beforeAll(async () => {
  server = await startScriptedEmbeddings({
    fail: (request) =>
      request.input[0] === "overloaded" ? { status: 503, body: { error: { message: "busy" } } } : undefined,
  });
});
afterAll(() => server.close());

describe("startScriptedEmbeddings", () => {
  it("embeds through the AI SDK's embedMany: one vector per text, in order, similar texts near and others far", async () => {
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).embeddingModel("text-embedding-3-small");
    const texts = ["I injured my knee skiing", "my knee injury still hurts", "what is the capital of France"];
    const { embeddings, usage } = await embedMany({ model, values: texts });
    expect(embeddings).toHaveLength(3);
    expect(embeddings[0]).toHaveLength(256);
    expect(embeddings.map((e, i) => e.every((x, d) => Math.abs(x - scriptedEmbedding(texts[i]!)[d]!) < 1e-12))).toEqual(
      [true, true, true],
    );
    expect(cosineSimilarity(embeddings[0]!, embeddings[1]!)).toBeGreaterThan(0.4);
    expect(Math.abs(cosineSimilarity(embeddings[0]!, embeddings[2]!))).toBeLessThan(0.2);
    expect(usage.tokens).toBe(5 + 5 + 6);
    expect(server.requests.at(-1)).toMatchObject({ model: "text-embedding-3-small", input: texts });
    // L2-normalised, and the same text always gives the same vector.
    expect(Math.hypot(...embeddings[0]!)).toBeCloseTo(1, 10);
    expect((await embed({ model, value: texts[0]! })).embedding).toEqual(embeddings[0]);
  });

  it("answers the openai package's base64 vectors and a request's own dimensions", async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "sk-test" });
    const response = await client.embeddings.create({ model: "text-embedding-3-small", input: "knee", dimensions: 64 });
    expect(response.data[0]!.embedding).toHaveLength(64);
    expect(response.data[0]!.embedding.map((x) => Math.fround(x))).toEqual(
      scriptedEmbedding("knee", 64).map((x) => Math.fround(x)),
    );
  });

  it("refuses malformed requests with OpenAI's 400 envelope, and answers a scripted failure with its status", async () => {
    const post = (body: unknown) =>
      fetch(`${server.baseURL}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const body of [
      { model: "m" },
      { model: "m", input: [] },
      { model: "m", input: [[1, 2]] },
      { model: "m", input: "x", dimensions: 0 },
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    }
    expect((await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{}" })).status).toBe(404);
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).embeddingModel("text-embedding-3-small");
    await expect(embedMany({ model, values: ["overloaded"], maxRetries: 0 })).rejects.toMatchObject({
      statusCode: 503,
    });
  });
});
