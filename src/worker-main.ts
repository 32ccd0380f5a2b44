/**
 * The worker process: serves the agents that the module named by `DURABLE_AGENT_AGENTS` exports
 * (`npm run worker`, the Docker image, the stack's workers). The library's worker is `worker.ts`;
 * this file only loads the agents (as the CLI does) and runs it.
 */
import { fileURLToPath } from "node:url";
import { loadAgents } from "./cli/load-agents.js";
import { createAgentWorker } from "./worker.js";

async function main(): Promise<void> {
  const modulePath = process.env.DURABLE_AGENT_AGENTS;
  if (!modulePath)
    throw new Error("Set DURABLE_AGENT_AGENTS to a module that exports your agents (ai.agent(...) values).");
  const agents = await loadAgents(modulePath);
  const worker = await createAgentWorker({ agents });
  console.log(`durable-agent worker: serving ${agents.map((a) => a.name).join(", ")} on ${worker.options.taskQueue}`);
  await worker.run();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
