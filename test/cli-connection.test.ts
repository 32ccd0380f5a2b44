/**
 * Issue 35: the CLI's connection options (`--address`, `--namespace`, `--api-key`, `--tls*`) win
 * over their environment variables, and reach both the CLI's client and its in-process worker:
 * through a TLS proxy in front of the suite's server that requires a client certificate, or
 * records the API key.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CliConnection } from "../src/cli/connection-options.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { runMain } from "./support/cli-helpers.js";
import { taskQueue } from "./support/harness.js";
import { makeCertificates, serverTls, startGrpcProxy, type TestCertificates } from "./support/security-grpc-proxy.js";

let certs: TestCertificates;
let model: ScriptedModel;
const savedBaseURL = process.env.OPENAI_BASE_URL;
beforeAll(async () => {
  certs = makeCertificates();
  model = await startScriptedModel(() => "Hello over mTLS.");
  process.env.OPENAI_BASE_URL = model.baseURL; // for the worker `run --module` starts in this process
});
afterAll(async () => {
  if (savedBaseURL === undefined) delete process.env.OPENAI_BASE_URL;
  else process.env.OPENAI_BASE_URL = savedBaseURL;
  await model.close();
});

describe("CliConnection: the options, else the environment", () => {
  it("--address and --namespace win over TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE; without them the variables apply", () => {
    const env = {
      TEMPORAL_ADDRESS: "env-host:7233",
      TEMPORAL_NAMESPACE: "env-namespace",
      TEMPORAL_TASK_QUEUE: "env-queue",
    };
    expect(new CliConnection({ address: "flag-host:7233", namespace: "flag-namespace" }, env).settings()).toEqual({
      address: "flag-host:7233",
      namespace: "flag-namespace",
      taskQueue: "env-queue",
    });
    expect(new CliConnection({}, env).settings("flag-queue")).toEqual({
      address: "env-host:7233",
      namespace: "env-namespace",
      taskQueue: "flag-queue",
    });
  });

  it("TLS options win over the TLS variables, and turn TLS on even when TEMPORAL_TLS=false; --api-key over TEMPORAL_API_KEY", () => {
    const env = { TEMPORAL_TLS: "false", TEMPORAL_TLS_CA: "/nonexistent/ca.pem", TEMPORAL_API_KEY: "env-key" };
    const security = new CliConnection(
      { "tls-ca-path": certs.ca, "tls-server-name": "localhost", "api-key": "flag-key" },
      env,
    ).security();
    expect(security).toMatchObject({
      apiKey: "flag-key",
      tls: { serverNameOverride: "localhost", serverRootCACertificate: expect.any(Buffer) },
    });
    expect(new CliConnection({ tls: true }, { TEMPORAL_TLS: "false" }).security()).toEqual({ tls: true });
    expect(new CliConnection({}, env).security()).toEqual({ apiKey: "env-key", tls: false });
  });

  it("a TLS option naming a missing file, or half a certificate pair, is a TlsConfigError naming the option", () => {
    expect(() =>
      new CliConnection({ "tls-cert-path": "/nonexistent/client.pem", "tls-key-path": certs.clientKey }, {}).security(),
    ).toThrow("TLS for the Temporal connection: --tls-cert-path names /nonexistent/client.pem, which does not exist.");
    expect(() => new CliConnection({ "tls-key-path": certs.clientKey }, {}).security()).toThrow(
      "--tls-key-path is set but TEMPORAL_TLS_CERT is not",
    );
  });
});

describe("through a TLS proxy", () => {
  it("mTLS from the options: the CLI's client and its in-process worker both present the client certificate", async () => {
    const proxy = await startGrpcProxy(inject("temporalAddress"), serverTls(certs, true));
    try {
      const mtls = [
        "--tls-cert-path",
        certs.clientCert,
        "--tls-key-path",
        certs.clientKey,
        "--tls-ca-path",
        certs.ca,
        "--tls-server-name",
        "localhost",
      ];
      const { code, stdout, stderr } = await runMain([
        "--address",
        proxy.address,
        "run",
        "cli-greeter",
        "Hi",
        "--module",
        "test/fixtures/cli-agents.ts",
        "--workflow-bundle",
        inject("workflowBundlePath"),
        "--task-queue",
        taskQueue(),
        "--json",
        ...mtls,
      ]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(stdout)).toMatchObject({ reply: "Hello over mTLS.", stopReason: "answered" });
      const paths = proxy.calls.map((call) => call.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          "/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution",
          "/temporal.api.workflowservice.v1.WorkflowService/PollWorkflowTaskQueue",
        ]),
      );
      expect(new Set(proxy.calls.map((call) => call.clientCertificate))).toEqual(new Set(["durable-agent-worker"]));

      const without = await runMain([
        "list",
        "--limit",
        "1",
        "--address",
        proxy.address,
        "--tls-ca-path",
        certs.ca,
        "--tls-server-name",
        "localhost",
      ]);
      expect(without.code).toBe(2);
      expect(without.stderr).toContain(`Cannot reach the Temporal server at ${proxy.address}`);
    } finally {
      await proxy.close();
    }
  });

  it("--api-key is sent as a bearer token on every call", async () => {
    const proxy = await startGrpcProxy(inject("temporalAddress"), serverTls(certs, false));
    try {
      const { code, stderr } = await runMain([
        "--api-key",
        "tcld-cli-key",
        "--tls-ca-path",
        certs.ca,
        "--tls-server-name",
        "localhost",
        "list",
        "--limit",
        "1",
        "--address",
        proxy.address,
      ]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(proxy.calls.map((call) => call.path)).toContain(
        "/temporal.api.workflowservice.v1.WorkflowService/ListWorkflowExecutions",
      );
      expect(new Set(proxy.calls.map((call) => call.authorization))).toEqual(new Set(["Bearer tcld-cli-key"]));
    } finally {
      await proxy.close();
    }
  });
});
