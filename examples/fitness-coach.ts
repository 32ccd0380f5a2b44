/**
 * `npm start`: runs the specification's fitness coach durably on a local Temporal server.
 * Connects to TEMPORAL_ADDRESS (default localhost:7233) or starts a dev server itself; runs a
 * worker in this process; uses a real model when OPENAI_API_KEY or OPENAI_BASE_URL is set, else
 * a scripted demo model.
 */
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { ai, DurableAgentError } from "durable-agent";
import { startDevServer, startScriptedModel, type ScriptedModel } from "durable-agent/testing";
import { coach, plan } from "./agents.js";

Runtime.install({ logger: new DefaultLogger("WARN") });
const input = process.argv.slice(2).join(" ") || "Swap squats for lunges";

async function temporal() {
  const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
  try {
    const connection = await Connection.connect({ address, connectTimeout: "2s" });
    console.log(`Temporal: using the server at ${address}`);
    return {
      address,
      client: new Client({ connection }),
      stop: () => connection.close(),
      searchAttributes: false,
      uiUrl: undefined,
    };
  } catch {
    // The dev server takes the port of TEMPORAL_ADDRESS (default 7233), its UI that port + 1000.
    const port = Number(address.split(":").at(-1)) || 7233;
    console.log(
      `Temporal: nothing at ${address}; starting a local dev server (UI on http://localhost:${port + 1000})...`,
    );
    const server = await startDevServer({ port, uiPort: port + 1000 });
    console.log(`Temporal: dev server at ${server.address} (CLI: ${server.executable}), UI at ${server.uiUrl}`);
    // The dev server helper registers durable-agent's search attributes, so runs can be filtered in its UI.
    return {
      address: server.address,
      client: server.env.client,
      stop: () => server.stop(),
      searchAttributes: true,
      uiUrl: server.uiUrl,
    };
  }
}

async function model(): Promise<ScriptedModel | undefined> {
  if (process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL) {
    console.log(`Model: ${coach.options.model.modelId} at ${process.env.OPENAI_BASE_URL ?? "api.openai.com"}`);
    return undefined;
  }
  // The failure the contract exists for: the model offers the change instead of making it.
  const scripted = await startScriptedModel([
    "Lunges are a great swap for squats. Want me to swap that?",
    { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
    "Done: squats are now lunges. Your plan is lunges, push-ups and planks.",
  ]);
  process.env.OPENAI_BASE_URL = scripted.baseURL;
  console.log(
    `Model: scripted demo model at ${scripted.baseURL} (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)`,
  );
  return scripted;
}

async function main(): Promise<void> {
  const server = await temporal();
  const scripted = await model();
  const worker = await ai.worker({
    agents: [coach],
    connection: await NativeConnection.connect({ address: server.address }),
    searchAttributes: server.searchAttributes,
  });
  console.log(`\nUser: ${input}`);
  const result = await worker.runUntil(coach.run(input, { client: server.client }));
  console.log(`Coach: ${result.reply}\n`);
  console.log(`Run ${result.workflowId}: ${result.stopReason} after ${result.trips} trip(s)`);
  for (const event of result.trace) {
    if (event.type === "reprompt") console.log(`  trip ${event.trip}: re-prompt (${event.kind}): ${event.text}`);
    if (event.type === "tool.finished")
      console.log(`  trip ${event.trip}: ${event.tool} -> ${event.status}${event.reason ? ` (${event.reason})` : ""}`);
    if (event.type === "backstop") console.log(`  trip ${event.trip}: backstop ${event.name} ${event.outcome}`);
  }
  console.log(`Plan now: ${plan.exercises.join(", ")}`);
  await scripted?.close();
  if (server.uiUrl && process.stdout.isTTY) {
    // On a terminal the dev server stays up, so the run can be looked at in its Web UI.
    console.log(
      `\nSee the run in the Temporal Web UI: ${server.uiUrl}/namespaces/default/workflows/${encodeURIComponent(result.workflowId)}/${result.runId}/history`,
    );
    console.log("The dev server and its UI stay up until Ctrl-C.");
    const keepAlive = setInterval(() => undefined, 1 << 30); // a pending promise alone does not keep Node running
    await new Promise<void>((resolve) => process.once("SIGINT", resolve));
    clearInterval(keepAlive);
  }
  await server.stop();
}

main().catch((error: unknown) => {
  // The library's errors say what to fix (a missing Temporal CLI, a taken port); no stack for those.
  console.error(DurableAgentError.isInstance(error) ? `npm start: ${error.message}` : error);
  process.exit(1);
});
