/** Issue 9, item 4: Temporal Cloud (API key) and self-hosted mTLS connections from the environment. */
import { inject } from "vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, TemporalConnectionError, temporalSecurityFromEnv, TlsConfigError } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, type Harness } from "./support/harness.js";
import { makeCertificates, serverTls, startGrpcProxy, type TestCertificates } from "./support/security-grpc-proxy.js";

const TLS_VARIABLES = [
  "TEMPORAL_ADDRESS",
  "TEMPORAL_API_KEY",
  "TEMPORAL_TLS",
  "TEMPORAL_TLS_CERT",
  "TEMPORAL_TLS_KEY",
  "TEMPORAL_TLS_CA",
  "TEMPORAL_TLS_SERVER_NAME",
];

/** Runs `fn` with these connection variables set (and the others unset), then restores the environment. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(TLS_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of TLS_VARIABLES) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

let harness: Harness;
let certs: TestCertificates;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness(); // installs the quiet runtime
  certs = makeCertificates();
  model = await startScriptedModel(() => "Connected.");
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

const agent = () => ai.agent({ name: "secure-agent", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });

/** A worker and a client configured only by the environment run one agent to the end. */
async function runThroughEnvironment(): Promise<string> {
  const queue = taskQueue();
  const coach = agent();
  const worker = await ai.worker({
    agents: [coach],
    taskQueue: queue,
    workflowBundle: { codePath: inject("workflowBundlePath") },
  });
  const client = await ai.connect();
  try {
    const result = await worker.runUntil(coach.run("Hello over TLS", { client, taskQueue: queue }));
    return result.reply;
  } finally {
    await client.connection.close();
    await worker.connection?.close?.();
  }
}

describe("connection settings from the environment", () => {
  it("are plaintext by default; an API key alone turns TLS on (Temporal Cloud); TEMPORAL_TLS=false keeps it off", () => {
    expect(temporalSecurityFromEnv({})).toEqual({});
    expect(temporalSecurityFromEnv({ TEMPORAL_API_KEY: "k" })).toEqual({ apiKey: "k" }); // the SDK turns TLS on for an API key
    expect(temporalSecurityFromEnv({ TEMPORAL_API_KEY: "k", TEMPORAL_TLS: "false" })).toEqual({
      apiKey: "k",
      tls: false,
    });
    expect(temporalSecurityFromEnv({ TEMPORAL_TLS: "true" })).toEqual({ tls: true });
    expect(
      temporalSecurityFromEnv({ TEMPORAL_TLS_CA: certs.ca, TEMPORAL_TLS_SERVER_NAME: "temporal.internal" }),
    ).toMatchObject({
      tls: { serverNameOverride: "temporal.internal", serverRootCACertificate: expect.any(Buffer) },
    });
    expect(
      temporalSecurityFromEnv({ TEMPORAL_TLS_CERT: certs.clientCert, TEMPORAL_TLS_KEY: certs.clientKey }),
    ).toMatchObject({
      tls: { clientCertPair: { crt: expect.any(Buffer), key: expect.any(Buffer) } },
    });
  });

  it.each([
    [
      "a missing certificate file",
      {
        TEMPORAL_TLS: "true",
        TEMPORAL_TLS_CERT: "/nonexistent/client.pem",
        TEMPORAL_TLS_KEY: "/nonexistent/client.key",
      },
      "TEMPORAL_TLS_CERT",
      "/nonexistent/client.pem",
      /TEMPORAL_TLS_CERT names \/nonexistent\/client\.pem, which does not exist/,
    ],
    [
      "a missing key file",
      { TEMPORAL_TLS_CERT: "<client cert>", TEMPORAL_TLS_KEY: "/nonexistent/client.key" },
      "TEMPORAL_TLS_KEY",
      "/nonexistent/client.key",
      /TEMPORAL_TLS_KEY names \/nonexistent\/client\.key, which does not exist/,
    ],
    [
      "a missing CA file",
      { TEMPORAL_TLS: "true", TEMPORAL_TLS_CA: "/nonexistent/ca.pem" },
      "TEMPORAL_TLS_CA",
      "/nonexistent/ca.pem",
      /TEMPORAL_TLS_CA names \/nonexistent\/ca\.pem, which does not exist/,
    ],
    [
      "a certificate without its key",
      { TEMPORAL_TLS: "true", TEMPORAL_TLS_CERT: "<client cert>" },
      "TEMPORAL_TLS_KEY",
      undefined,
      /TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not/,
    ],
    [
      "a TEMPORAL_TLS that is not a boolean",
      { TEMPORAL_TLS: "yes please" },
      "TEMPORAL_TLS",
      undefined,
      /TEMPORAL_TLS must be true or false/,
    ],
  ])(
    "%s: the worker refuses to start, and the client to connect, with a TlsConfigError naming it",
    async (_name, vars, variable, path, message) => {
      const env = Object.fromEntries(
        Object.entries(vars).map(([k, v]) => [k, v === "<client cert>" ? certs.clientCert : v]),
      );
      await withEnv({ TEMPORAL_ADDRESS: harness.address, ...env }, async () => {
        for (const attempt of [() => ai.worker({ agents: [agent()], taskQueue: taskQueue() }), () => ai.connect()]) {
          const error = await attempt().catch((e: unknown) => e);
          expect(TlsConfigError.isInstance(error)).toBe(true);
          expect(error).toMatchObject({ variable, path });
          expect((error as Error).message).toMatch(message);
        }
      });
    },
  );
});

describe("mTLS (self-hosted)", () => {
  it("a worker and a client with TEMPORAL_TLS_CERT/KEY/CA run an agent through a server that requires client certificates", async () => {
    const proxy = await startGrpcProxy(harness.address, serverTls(certs, true));
    try {
      const reply = await withEnv(
        {
          TEMPORAL_ADDRESS: proxy.address,
          TEMPORAL_TLS_CERT: certs.clientCert,
          TEMPORAL_TLS_KEY: certs.clientKey,
          TEMPORAL_TLS_CA: certs.ca,
          TEMPORAL_TLS_SERVER_NAME: "localhost",
        },
        runThroughEnvironment,
      );
      expect(reply).toBe("Connected.");
      expect(proxy.calls.length).toBeGreaterThan(3);
      expect(new Set(proxy.calls.map((call) => call.clientCertificate))).toEqual(new Set(["durable-agent-worker"]));
      expect(proxy.calls.map((call) => call.path)).toEqual(
        expect.arrayContaining([
          "/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution",
          "/temporal.api.workflowservice.v1.WorkflowService/PollWorkflowTaskQueue",
        ]),
      );
    } finally {
      await proxy.close();
    }
  });

  it("without a client certificate the server turns the connection away: a TemporalConnectionError naming the address", async () => {
    const proxy = await startGrpcProxy(harness.address, serverTls(certs, true));
    try {
      await withEnv(
        { TEMPORAL_ADDRESS: proxy.address, TEMPORAL_TLS_CA: certs.ca, TEMPORAL_TLS_SERVER_NAME: "localhost" },
        async () => {
          const error = await ai.worker({ agents: [agent()], taskQueue: taskQueue() }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(TemporalConnectionError);
          expect((error as Error).message).toContain(proxy.address);
        },
      );
      expect(proxy.calls).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe("API key (Temporal Cloud)", () => {
  it("TEMPORAL_API_KEY is sent as a bearer token over TLS on every call, by the worker and the client", async () => {
    const proxy = await startGrpcProxy(harness.address, serverTls(certs, false));
    try {
      const reply = await withEnv(
        {
          TEMPORAL_ADDRESS: proxy.address,
          TEMPORAL_API_KEY: "tcld-test-api-key",
          TEMPORAL_TLS_CA: certs.ca,
          TEMPORAL_TLS_SERVER_NAME: "localhost",
        },
        runThroughEnvironment,
      );
      expect(reply).toBe("Connected.");
      expect(proxy.calls.length).toBeGreaterThan(3);
      expect(new Set(proxy.calls.map((call) => call.authorization))).toEqual(new Set(["Bearer tcld-test-api-key"]));
    } finally {
      await proxy.close();
    }
  });
});
