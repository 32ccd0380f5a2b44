/** Issue 9, item 2: AES-256-GCM payload encryption, key rotation by id, and the codec server. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Client, type WorkflowHandle } from "@temporalio/client";
import { defaultPayloadConverter, type Payload } from "@temporalio/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AesGcmPayloadCodec,
  ai,
  codecKeysFromEnv,
  encryptedDataConverter,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadCodecError,
  startCodecServer,
  type CodecServer,
} from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { keyring, meta, newKey, payloadsOf, storedText } from "./support/codec-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const json = (value: unknown) => defaultPayloadConverter.toPayload(value)!;
const fromJson = (payload: Payload) => defaultPayloadConverter.fromPayload(payload);
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("codec keys from the environment", () => {
  const a = newKey();
  const b = newKey();

  it("read id:base64key pairs; one key encrypts by default, several need DURABLE_AGENT_CODEC_KEY_ID", () => {
    expect(codecKeysFromEnv({})).toBeUndefined();
    const one = codecKeysFromEnv({ DURABLE_AGENT_CODEC_KEYS: `2026-01:${a}` })!;
    expect(one.encryptKeyId).toBe("2026-01");
    const two = codecKeysFromEnv({
      DURABLE_AGENT_CODEC_KEYS: ` 2026-01:${a} , 2026-07:${b} `,
      DURABLE_AGENT_CODEC_KEY_ID: "2026-07",
    })!;
    expect(two.encryptKeyId).toBe("2026-07");
    expect([...two.keys.keys()]).toEqual(["2026-01", "2026-07"]);
    expect(Buffer.from(two.keys.get("2026-01")!).toString("base64")).toBe(a);
  });

  it.each([
    [
      "several keys without a key id",
      { DURABLE_AGENT_CODEC_KEYS: `a:${a},b:${b}` },
      /set DURABLE_AGENT_CODEC_KEY_ID to the id that encrypts \(a, b\)/,
      undefined,
    ],
    [
      "a key id that is not among the keys",
      { DURABLE_AGENT_CODEC_KEYS: `a:${a}`, DURABLE_AGENT_CODEC_KEY_ID: "c" },
      /DURABLE_AGENT_CODEC_KEY_ID is "c", which is not in DURABLE_AGENT_CODEC_KEYS \(a\)/,
      "c",
    ],
    [
      "a key of the wrong length",
      { DURABLE_AGENT_CODEC_KEYS: `short:${a.slice(0, 20)}` },
      /key "short" must be 32 random bytes in base64 .* got 15 bytes/,
      "short",
    ],
    [
      "a key that is not base64",
      { DURABLE_AGENT_CODEC_KEYS: `x:not*base64!` },
      /key "x" must be 32 random bytes in base64 .* got text that is not base64/,
      "x",
    ],
    [
      "an entry without an id",
      { DURABLE_AGENT_CODEC_KEYS: a },
      /entry #1 of DURABLE_AGENT_CODEC_KEYS is not id:base64key/,
      undefined,
    ],
    ["a repeated id", { DURABLE_AGENT_CODEC_KEYS: `a:${a},a:${b}` }, /key id "a" appears twice/, "a"],
    [
      "a key id without keys",
      { DURABLE_AGENT_CODEC_KEY_ID: "a" },
      /DURABLE_AGENT_CODEC_KEY_ID is set but DURABLE_AGENT_CODEC_KEYS is not/,
      undefined,
    ],
  ])("%s is a PayloadCodecError that names the problem and never the key", (_name, env, message, keyId) => {
    const error = thrown(() => codecKeysFromEnv(env));
    expect(PayloadCodecError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as PayloadCodecError).keyId).toBe(keyId);
    for (const key of [a, b, a.slice(0, 20)]) expect((error as Error).message).not.toContain(key);
  });
});

describe("AesGcmPayloadCodec", () => {
  const keys = keyring({ a: newKey(), b: newKey() }, "a");
  const codec = new AesGcmPayloadCodec(keys);

  it("encrypts each payload whole, names the key in the metadata, and decrypts it back", async () => {
    const plain = json({ text: "my knee hurts" });
    const [encrypted] = await codec.encode([plain]);
    expect(meta(encrypted!, "encoding")).toBe(ENCRYPTED_ENCODING);
    expect(meta(encrypted!, KEY_ID_METADATA)).toBe("a");
    expect(meta(encrypted!, "encryption-cipher")).toBe("aes-256-gcm");
    expect(Buffer.from(encrypted!.data!).toString("latin1")).not.toContain("knee");
    expect(Buffer.from(encrypted!.data!).toString("latin1")).not.toContain("json/plain"); // the inner encoding is encrypted too
    const [again] = await codec.encode([plain]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encrypted!.data!))).toBe(false); // a fresh IV each time
    const [decoded] = await codec.decode([encrypted!]);
    expect(fromJson(decoded!)).toEqual({ text: "my knee hurts" });
  });

  it("passes payloads written before encryption was turned on through unchanged", async () => {
    const plain = json("old run");
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it("refuses altered data, and a payload relabelled to another key, with a PayloadCodecError", async () => {
    const [encrypted] = await codec.encode([json("secret")]);
    const altered = {
      ...encrypted!,
      data: Uint8Array.from(encrypted!.data!, (byte, i) => (i === 20 ? byte ^ 1 : byte)),
    };
    await expect(codec.decode([altered])).rejects.toThrow(
      /could not be decrypted with key "a": the key is wrong or the payload was altered/,
    );
    const relabelled = {
      ...encrypted!,
      metadata: { ...encrypted!.metadata, [KEY_ID_METADATA]: new TextEncoder().encode("b") },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow(PayloadCodecError);
  });

  it("a payload under a key this process does not have names that key and says to keep old keys", async () => {
    const [encrypted] = await codec.encode([json("secret")]);
    const other = new AesGcmPayloadCodec(keyring({ b: Buffer.from(keys.keys.get("b")!).toString("base64") }, "b"));
    const error = await other.decode([encrypted!]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadCodecError);
    expect(error).toMatchObject({ keyId: "a" });
    expect((error as Error).message).toMatch(
      /encrypted with key "a", which this process does not have \(it has b\); after a rotation keep the old key/,
    );
  });
});

/** Resolves once the run's pending activity has a failed attempt recorded (so stopping its worker aborts nothing). */
async function attemptFailed(workflow: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { raw } = await workflow.describe();
    if (raw.pendingActivities?.some((activity) => activity.lastFailure)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the model call's failed attempt was never recorded");
}

/** A plan tool whose input and output carry known strings. */
function planTool() {
  return ai.tool({
    name: "update_plan",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async ({ to }) => ({ ok: true, note: `SECRET-OUTPUT plan now has ${to}` }),
  });
}

describe("an encrypted run", () => {
  it("leaves no plaintext of the message, tool input, tool output, streamed text or reply in the history on the server", async () => {
    const keys = keyring({ k1: newKey() }, "k1");
    const dataConverter = encryptedDataConverter(keys);
    const client = new Client({ connection: harness.client.connection, dataConverter });
    // Paced, so the reply's model call is still running when the client sees its first delta.
    const model = await startScriptedModel(
      [
        { toolCalls: [{ name: "update_plan", arguments: { from: "SECRET-INPUT-squats", to: "SECRET-INPUT-lunges" } }] },
        "SECRET-REPLY: your knee plan is updated.",
      ],
      { chunksPerSecond: 20 },
    );
    const agent = ai.agent({
      name: "codec-plain",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [planTool()],
    });
    const message = "SECRET-MESSAGE: my knee hurts, swap squats for lunges";
    const heartbeatEncodings: (string | undefined)[] = [];
    const { result, history, events } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const stream = await agent.stream(message, { client, taskQueue });
        const events: string[] = [];
        for await (const event of stream) {
          if (event.type === "text.delta" && events.at(-1) !== "text.delta") {
            // The streamed text as the server holds it: the model call's heartbeat details.
            const pending =
              (await harness.client.workflow.getHandle(stream.workflowId).describe()).raw.pendingActivities ?? [];
            for (const activity of pending)
              for (const payload of activity.heartbeatDetails?.payloads ?? [])
                heartbeatEncodings.push(meta(payload as never, "encoding"));
          }
          events.push(event.type);
        }
        const handle = await ai.getRun(stream.workflowId, { client });
        return { result: await handle.result(), history: await handle.workflow.fetchHistory(), events };
      },
      { dataConverter },
    );
    await model.close();
    expect(result.reply).toBe("SECRET-REPLY: your knee plan is updated.");
    expect(events).toContain("text.delta");
    const secrets = ["SECRET-MESSAGE", "SECRET-INPUT", "SECRET-OUTPUT", "SECRET-REPLY", "knee"];

    const stored = storedText(history);
    for (const secret of secrets) expect(stored).not.toContain(secret);
    const payloads = payloadsOf(history);
    expect(payloads.length).toBeGreaterThan(10);
    // Every payload is encrypted, except the SDK's own local-activity bookkeeping (ids and timestamps, no user data).
    const notEncrypted = payloads.filter(({ payload }) => meta(payload, "encoding") !== ENCRYPTED_ENCODING);
    expect(notEncrypted.map(({ path }) => path.replace(/events\[\d+\]/, "events[n]"))).toEqual([
      "events[n].markerRecordedEventAttributes.details.data.payloads[0]",
    ]);
    expect(Object.keys(JSON.parse(Buffer.from(notEncrypted[0]!.payload.data!).toString("utf8"))).sort()).toEqual([
      "activity_id",
      "activity_type",
      "attempt",
      "backoff",
      "complete_time",
      "original_schedule_time",
      "seq",
    ]);
    expect(
      new Set(payloads.filter((p) => !notEncrypted.includes(p)).map(({ payload }) => meta(payload, KEY_ID_METADATA))),
    ).toEqual(new Set(["k1"]));
    // The UI summaries were encrypted too, and so was the streamed text in the model call's heartbeat details (not history, but on the server).
    expect(heartbeatEncodings.length).toBeGreaterThan(0);
    expect(new Set(heartbeatEncodings)).toEqual(new Set([ENCRYPTED_ENCODING]));
    expect(payloads.some(({ path }) => path.includes("userMetadata.summary"))).toBe(true);

    // With the key, every secret is there: the scan above was looking at the right data.
    const decoded = await new AesGcmPayloadCodec(keys).decode(payloads.map(({ payload }) => payload));
    const plaintext = decoded.map((p) => Buffer.from(p.data!).toString("utf8")).join("\n");
    for (const secret of secrets) expect(plaintext).toContain(secret);
  });

  it("started under key A still completes after rotation to key B with A kept for decryption", async () => {
    const a = newKey();
    const b = newKey();
    const onlyA = keyring({ A: a }, "A");
    const rotated = keyring({ A: a, B: b }, "B");
    const queue = taskQueue();
    let rotate!: () => void;
    const rotation = new Promise<void>((resolve) => (rotate = resolve));
    const model = await startScriptedModel(({ index }) => {
      if (index === 0) return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
      if (index === 1) {
        rotate(); // worker A stops once this attempt has failed; Temporal retries the model call after Retry-After, on worker B
        return { status: 503, headers: { "retry-after-ms": "2000" } };
      }
      return "Done after rotation.";
    });
    const agent = ai.agent({
      name: "codec-rotation",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [planTool()],
    });
    const clientA = new Client({ connection: harness.client.connection, dataConverter: encryptedDataConverter(onlyA) });
    const handle = await agent.start("Swap squats for lunges", { client: clientA, taskQueue: queue });
    await withWorker(harness, [agent], () => rotation.then(() => attemptFailed(handle.workflow)), {
      taskQueue: queue,
      dataConverter: encryptedDataConverter(onlyA),
    });

    const clientAB = new Client({
      connection: harness.client.connection,
      dataConverter: encryptedDataConverter(rotated),
    });
    const result = await withWorker(
      harness,
      [agent],
      async () => (await ai.getRun(handle.workflowId, { client: clientAB })).result(),
      {
        taskQueue: queue,
        dataConverter: encryptedDataConverter(rotated),
      },
    );
    await model.close();
    expect(result.reply).toBe("Done after rotation.");
    expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok", output: { ok: true } }]);
    expect(model.requests).toHaveLength(3);

    const payloads = payloadsOf(await handle.workflow.fetchHistory()).filter(
      ({ payload }) => meta(payload, "encoding") === ENCRYPTED_ENCODING,
    );
    const keyIds = payloads.map(({ payload }) => meta(payload, KEY_ID_METADATA));
    expect(new Set(keyIds)).toEqual(new Set(["A", "B"]));
    expect(keyIds[0]).toBe("A"); // the input, written by a client with key A
    expect(keyIds.at(-1)).toBe("B"); // the result, written after the rotation
    // Without A, the run's early payloads cannot be read: the error names the missing key.
    const onlyB = new AesGcmPayloadCodec(keyring({ B: b }, "B"));
    await expect(onlyB.decode(payloads.map(({ payload }) => payload))).rejects.toMatchObject({
      name: "PayloadCodecError",
      keyId: "A",
    });
  });
});

describe("the codec server", () => {
  const keys = keyring({ ui: newKey() }, "ui");
  const codec = new AesGcmPayloadCodec(keys);
  let server: CodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ keys, port: 0, corsOrigins: ["http://localhost:8233"] });
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-namespace": "default", ...headers },
      body: JSON.stringify(body),
    });
  const toJson = (p: Payload) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString("base64")])),
    data: Buffer.from(p.data!).toString("base64"),
  });

  it("POST /decode turns encrypted payloads (in the UI's JSON form) back into plaintext ones", async () => {
    const encrypted = await codec.encode([json({ text: "my knee hurts" }), json("second")]);
    const response = await post("/decode", { payloads: encrypted.map(toJson) }, { origin: "http://localhost:8233" });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:8233");
    const { payloads } = (await response.json()) as {
      payloads: Array<{ metadata: Record<string, string>; data: string }>;
    };
    expect(payloads.map((p) => Buffer.from(p.metadata.encoding!, "base64").toString())).toEqual([
      "json/plain",
      "json/plain",
    ]);
    expect(payloads.map((p) => JSON.parse(Buffer.from(p.data, "base64").toString()))).toEqual([
      { text: "my knee hurts" },
      "second",
    ]);
  });

  it("POST /encode encrypts with the current key, and a path prefix before the operation is fine", async () => {
    const response = await post("/codec/encode", { payloads: [toJson(json("hello"))] });
    const { payloads } = (await response.json()) as {
      payloads: Array<{ metadata: Record<string, string>; data: string }>;
    };
    expect(Buffer.from(payloads[0]!.metadata[KEY_ID_METADATA]!, "base64").toString()).toBe("ui");
    const back = await codec.decode([
      {
        metadata: {
          encoding: Buffer.from(payloads[0]!.metadata.encoding!, "base64"),
          [KEY_ID_METADATA]: Buffer.from("ui"),
        },
        data: Buffer.from(payloads[0]!.data, "base64"),
      },
    ]);
    expect(fromJson(back[0]!)).toBe("hello");
  });

  it("answers the UI's CORS preflight for allowed origins only", async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,x-namespace",
        },
      });
    const allowed = await preflight("http://localhost:8233");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:8233");
    expect(allowed.headers.get("access-control-allow-headers")).toMatch(/X-Namespace/i);
    expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
    const denied = await preflight("http://evil.example");
    expect(denied.status).toBe(403);
    expect(denied.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("says what is wrong: an unknown key (400), a bad body (400), an unknown route (404)", async () => {
    const foreign = await new AesGcmPayloadCodec(keyring({ other: newKey() }, "other")).encode([json("x")]);
    const unknownKey = await post("/decode", { payloads: foreign.map(toJson) });
    expect(unknownKey.status).toBe(400);
    expect(((await unknownKey.json()) as { message: string }).message).toMatch(
      /encrypted with key "other", which this process does not have/,
    );
    const badBody = await fetch(`${server.url}/decode`, { method: "POST", body: "not json" });
    expect(badBody.status).toBe(400);
    const noRoute = await fetch(`${server.url}/keys`, { method: "GET" });
    expect(noRoute.status).toBe(404);
  });

  it("asks `authorize` before using the codec", async () => {
    const guarded = await startCodecServer({
      keys,
      port: 0,
      authorize: (req) => req.headers.authorization === "Bearer let-me-in",
    });
    try {
      const body = JSON.stringify({ payloads: (await codec.encode([json("x")])).map(toJson) });
      const denied = await fetch(`${guarded.url}/decode`, { method: "POST", body });
      expect(denied.status).toBe(401);
      const allowed = await fetch(`${guarded.url}/decode`, {
        method: "POST",
        body,
        headers: { authorization: "Bearer let-me-in" },
      });
      expect(allowed.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe("`durable-agent codec-server` (src/cli/codec-server-command.ts)", () => {
  const run = (args: string[], env: Record<string, string>) =>
    spawn(
      process.execPath,
      [
        "--import",
        import.meta.resolve("tsx"),
        "--conditions=durable-agent-source",
        new URL("../src/cli/codec-server-command.ts", import.meta.url).pathname,
        ...args,
      ],
      {
        env: { ...process.env, DURABLE_AGENT_CODEC_KEYS: "", DURABLE_AGENT_CODEC_KEY_ID: "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );

  it("serves the keys in the environment, prints its URL, and stops cleanly on SIGTERM", async () => {
    const key = newKey();
    const child = run(["--port", "0", "--cors-origin", "http://localhost:9999"], {
      DURABLE_AGENT_CODEC_KEYS: `cli:${key}`,
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
      expect(line).toMatch(
        /^durable-agent codec server on http:\/\/127\.0\.0\.1:\d+ \(keys: cli; new payloads use "cli"\)$/,
      );
      expect(line).not.toContain(key);
      const url = /on (http:\S+)/.exec(line)![1]!;
      const [encrypted] = await new AesGcmPayloadCodec(keyring({ cli: key }, "cli")).encode([json("from the CLI")]);
      const response = await fetch(`${url}/decode`, {
        method: "POST",
        headers: { origin: "http://localhost:9999" },
        body: JSON.stringify({
          payloads: [
            {
              metadata: Object.fromEntries(
                Object.entries(encrypted!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString("base64")]),
              ),
              data: Buffer.from(encrypted!.data!).toString("base64"),
            },
          ],
        }),
      });
      expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:9999");
      const { payloads } = (await response.json()) as { payloads: Array<{ data: string }> };
      expect(JSON.parse(Buffer.from(payloads[0]!.data, "base64").toString())).toBe("from the CLI");
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("without keys exits 64 and says how to make one", async () => {
    const child = run([], {});
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(child, "exit");
    expect(code).toBe(64);
    expect(stderr).toMatch(
      /^No keys: set DURABLE_AGENT_CODEC_KEYS=id:base64key \(for a new key: openssl rand -base64 32\)\./,
    );
  });
});
