/**
 * A worker with `searchAttributes: true` checks at its start that its namespace has every search
 * attribute runs set, by name and type, with one ListSearchAttributes call: fresh namespaces on
 * the suite's dev server, registered with none, with an older release's set, or with one of
 * another type, reject with a `SearchAttributesNotRegisteredError` naming exactly what is wrong;
 * the commands its message prints, run with the real `temporal` CLI, fix the namespace, and a run
 * then sets the attributes. A server that refuses the call (a proxy answering PERMISSION_DENIED or
 * UNIMPLEMENTED) gets one warning and a worker. `durable-agent worker --search-attributes` prints
 * the message and exits 2.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { encodeSearchAttributeIndexedValueType } from "@temporalio/common/lib/search-attributes.js";
import { msToTs } from "@temporalio/common/lib/time.js";
import { DefaultLogger, NativeConnection, Runtime, type LogEntry } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EXIT } from "../src/cli/command.js";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { ai, SearchAttributesNotRegisteredError, type SearchAttributeSpec } from "../src/index.js";
import { findTemporalCli, installTemporalCliWithPip } from "../src/testing/temporal-cli.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { createAgentWorker, type AgentWorkerOptions } from "../src/worker.js";
import { cli } from "./support/cli-helpers.js";
import { startGrpcProxy } from "./support/security-grpc-proxy.js";

const LIST = "/temporal.api.operatorservice.v1.OperatorService/ListSearchAttributes";
type AttributeKey = keyof typeof SEARCH_ATTRIBUTES;

// This file's own runtime, installed before any connection: what the workers log is kept here.
const logs: LogEntry[] = [];
Runtime.install({ logger: new DefaultLogger("WARN", (entry) => logs.push(entry)) });
const skippedWarnings = () => logs.filter((entry) => entry.message.startsWith("durable-agent: skipped the check"));

const address = inject("temporalAddress");
let native: NativeConnection;
let connection: Connection;
let model: ScriptedModel;
beforeAll(async () => {
  native = await NativeConnection.connect({ address });
  connection = await Connection.connect({ address });
  model = await startScriptedModel(() => "Hello!");
});
afterAll(async () => {
  await model.close();
  await connection.close();
  await native.close();
});

/** Every attribute as the `temporal` CLI names its type. */
const spec = (key: AttributeKey): SearchAttributeSpec => ({
  name: SEARCH_ATTRIBUTES[key].name,
  type: { KEYWORD: "Keyword", INT: "Int", DOUBLE: "Double", BOOL: "Bool" }[SEARCH_ATTRIBUTES[key].type as string]!,
});
const ALL = Object.keys(SEARCH_ATTRIBUTES) as AttributeKey[];

/** A new namespace on the dev server with these attributes registered (a key's own type unless `types` says another). */
async function namespaceWith(keys: AttributeKey[], types: Partial<Record<AttributeKey, "INT" | "KEYWORD">> = {}) {
  const namespace = `check-${randomUUID()}`;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs("1 day"),
  });
  if (keys.length)
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        keys.map((key) => [
          SEARCH_ATTRIBUTES[key].name,
          encodeSearchAttributeIndexedValueType(types[key] ?? SEARCH_ATTRIBUTES[key].type)!,
        ]),
      ),
    });
  return namespace;
}

const agent = ai.agent({ name: "checked", model: ai.openai("gpt-test", { baseURL: "http://127.0.0.1:1/v1" }) });
const served = () =>
  ai.agent({ name: "checked", model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: "test" }) });

function worker(namespace: string, options: Partial<AgentWorkerOptions> = {}) {
  return createAgentWorker({
    agents: [agent],
    connection: native,
    namespace,
    taskQueue: `check-${randomUUID()}`,
    workflowBundle: { codePath: inject("workflowBundlePath") },
    searchAttributes: true,
    ...options,
  });
}

/** What creating a worker on the namespace rejects with. */
async function rejection(namespace: string): Promise<SearchAttributesNotRegisteredError> {
  const error = await worker(namespace).then(
    () => expect.unreachable("the worker was created"),
    (error: unknown) => error,
  );
  if (!SearchAttributesNotRegisteredError.isInstance(error)) throw error;
  return error;
}

let temporalCli: Promise<string> | undefined;
/** Runs each `temporal ...` line of the message as printed, against the suite's server. */
async function runPrintedCommands(message: string): Promise<string[]> {
  temporalCli ??= Promise.resolve(findTemporalCli()?.path ?? installTemporalCliWithPip());
  const commands = message
    .split("\n")
    .filter((line) => line.startsWith("  temporal "))
    .map((line) => line.trim());
  for (const command of commands)
    await promisify(execFile)(await temporalCli, [...command.split(" ").slice(1), "--address", address]);
  return commands;
}

describe("a worker with searchAttributes: true checks its namespace at start", () => {
  it("a namespace with none: rejects naming all ten with their create commands; run as printed they fix it, the worker starts and a run sets the attributes", async () => {
    const namespace = await namespaceWith([]);
    const error = await rejection(namespace);
    expect(error).toBeInstanceOf(SearchAttributesNotRegisteredError);
    expect(error.namespace).toBe(namespace);
    expect(error.missing).toEqual(ALL.map(spec));
    expect(error.wrongType).toEqual([]);
    for (const { name, type } of error.missing)
      expect(error.message).toContain(
        `\n  temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}\n`,
      );
    expect(error.message).toContain("docs/operating-runs.md");
    expect(await runPrintedCommands(error.message)).toHaveLength(10);

    const proxy = await startGrpcProxy(address);
    const proxied = await NativeConnection.connect({ address: proxy.address });
    try {
      const client = new Client({ connection, namespace });
      const checked = served();
      const taskQueue = `check-${randomUUID()}`;
      const started = await worker(namespace, { agents: [checked], connection: proxied, taskQueue });
      expect(proxy.calls.filter((call) => call.path === LIST)).toHaveLength(1);
      const described = await started.runUntil(async () => {
        const handle = await checked.start("Hi", { client, taskQueue });
        await handle.result();
        return handle.workflow.describe();
      });
      expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.agent)).toBe("checked");
      expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.stopReason)).toBe("answered");
      expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.trips)).toBe(1);
    } finally {
      await proxied.close();
      await proxy.close();
    }
  });

  it("a namespace registered for the release before DurableAgentCostUsd and DurableAgentBackstopRan: exactly those two are missing, and only their commands are printed", async () => {
    const namespace = await namespaceWith(ALL.filter((key) => key !== "costUsd" && key !== "backstopRan"));
    const error = await rejection(namespace);
    expect(error.missing).toEqual([spec("costUsd"), spec("backstopRan")]);
    expect(error.wrongType).toEqual([]);
    expect(error.message.split("\n").filter((line) => line.startsWith("  temporal "))).toEqual([
      `  temporal operator search-attribute create --namespace ${namespace} --name DurableAgentCostUsd --type Double`,
      `  temporal operator search-attribute create --namespace ${namespace} --name DurableAgentBackstopRan --type Bool`,
    ]);
  });

  it("ones registered with another type are named with both types; the printed commands (removes first) fix them", async () => {
    // The namespace's three Ints: trips, reprompts and a mistyped tokens, so refusals cannot be created before tokens is removed.
    const namespace = await namespaceWith(
      ALL.filter((key) => key !== "refusals"),
      { tokens: "INT", backstopRan: "KEYWORD" },
    );
    const error = await rejection(namespace);
    expect(error.missing).toEqual([spec("refusals")]);
    expect(error.wrongType).toEqual([
      { ...spec("tokens"), registered: "Int" },
      { ...spec("backstopRan"), registered: "Keyword" },
    ]);
    expect(error.message).toContain(
      "Registered with another type: DurableAgentTokens (Int; runs set Double), DurableAgentBackstopRan (Keyword; runs set Bool).",
    );
    expect(await runPrintedCommands(error.message)).toEqual([
      `temporal operator search-attribute remove --namespace ${namespace} --name DurableAgentTokens --yes`,
      `temporal operator search-attribute remove --namespace ${namespace} --name DurableAgentBackstopRan --yes`,
      `temporal operator search-attribute create --namespace ${namespace} --name DurableAgentRefusals --type Int`,
      `temporal operator search-attribute create --namespace ${namespace} --name DurableAgentTokens --type Double`,
      `temporal operator search-attribute create --namespace ${namespace} --name DurableAgentBackstopRan --type Bool`,
    ]);
    const started = await worker(namespace);
    await started.runUntil(Promise.resolve());
  });

  it.each([
    [7, "PERMISSION_DENIED"],
    [12, "UNIMPLEMENTED"],
  ])(
    "a server that refuses to list them (%i, %s): the worker starts, with one warning that the check was skipped",
    async (status, name) => {
      const namespace = await namespaceWith([]); // would fail the check
      const proxy = await startGrpcProxy(address, undefined, { [LIST]: status });
      const proxied = await NativeConnection.connect({ address: proxy.address });
      const before = skippedWarnings().length;
      try {
        const started = await worker(namespace, { connection: proxied });
        await started.runUntil(Promise.resolve());
        expect(proxy.calls.filter((call) => call.path === LIST)).toHaveLength(1);
        const warnings = skippedWarnings().slice(before);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.level).toBe("WARN");
        expect(warnings[0]!.message).toContain(`namespace "${namespace}"`);
        expect(warnings[0]!.message).toContain(`the server refused to list them (${name}`);
        expect(warnings[0]!.meta).toMatchObject({ namespace, status: name });
      } finally {
        await proxied.close();
        await proxy.close();
      }
    },
  );

  it("without searchAttributes, no check: no ListSearchAttributes call, and the worker starts on a namespace without them", async () => {
    const namespace = await namespaceWith([]);
    const proxy = await startGrpcProxy(address);
    const proxied = await NativeConnection.connect({ address: proxy.address });
    try {
      const started = await worker(namespace, { connection: proxied, searchAttributes: false });
      await started.runUntil(Promise.resolve());
      expect(proxy.calls.filter((call) => call.path === LIST)).toEqual([]);
      expect(proxy.calls.length).toBeGreaterThan(0);
    } finally {
      await proxied.close();
      await proxy.close();
    }
  });
});

describe("docs/operating-runs.md", () => {
  it("shows the message as the error gives it", () => {
    const doc = readFileSync("docs/operating-runs.md", "utf8");
    const block = /`SearchAttributesNotRegisteredError`[\s\S]*?```text\n([\s\S]*?)\n\s*```/.exec(doc)![1]!;
    const shown = block.replace(/^ {2}/gm, "");
    expect(shown).toBe(new SearchAttributesNotRegisteredError("prod", [spec("costUsd"), spec("backstopRan")]).message);
  });
});

describe("durable-agent worker --search-attributes", () => {
  it("on a namespace that lacks two: prints the error's message (and nothing else) and exits 2", async () => {
    const namespace = await namespaceWith(ALL.filter((key) => key !== "costUsd" && key !== "backstopRan"));
    const exit = await cli([
      "worker",
      "test/fixtures/cli-agents.ts",
      "--namespace",
      namespace,
      "--search-attributes",
      "--workflow-bundle",
      inject("workflowBundlePath"),
    ]);
    expect(exit.code).toBe(EXIT.infrastructure);
    expect(exit.stderr).toBe(
      `${new SearchAttributesNotRegisteredError(namespace, [spec("costUsd"), spec("backstopRan")]).message}\n`,
    );
    expect(exit.stdout).toBe("");
  }, 120_000);
});
