/**
 * `npm run eval:real -- --trials <n> [--hints default|direct] [--concurrency <n per side>] [--json <dir>]`:
 * the example coach cases (examples/evals) with the tool-use contract off and on, against the
 * local real model (installed and started as `npm run test:real-model` does), on a Temporal dev
 * server. Prints both reports and `compareReports(off, on)`. `--hints direct` runs the contract
 * with the alternative hint texts below instead of the defaults. The model samples at its
 * default temperature, so trials differ.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { ai, compareReports, formatComparison, type Agent, type EvalReport } from "../../src/index.js";
import { startDevServer } from "../../src/testing/dev-server.js";
import { bundleAgentWorkflows, createAgentWorker } from "../../src/worker.js";
import { createCoach } from "../../examples/evals/coach-agent.js";
import { cases, scorers } from "../../examples/evals/coach-cases.js";
import { installRealModel } from "./install.js";
import { startLlamaServer } from "./llama-server.js";

/** Alternative hint texts (`--hints direct`): shorter, naming the tool and the exact call to make, for a small model. */
export const DIRECT_HINTS = {
  act: ({ requiredTools }: { requiredTools: string[] }) =>
    `Do not describe the change or ask for confirmation. Call the ${requiredTools.map((t) => `\`${t}\``).join(" or ")} tool now with the exercise to remove as "from" and the exercise to add as "to".`,
  refusal: ({ tool, reason }: { tool: string; reason: string }) =>
    `\`${tool}\` refused: ${reason}. Call \`${tool}\` again with an option it accepts.`,
};

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "3" },
    hints: { type: "string", default: "default" },
    concurrency: { type: "string", default: "1" },
    json: { type: "string" },
  },
});
const trials = Number(values.trials);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(trials) || trials < 1)
  throw new Error(`--trials must be a positive integer (got ${values.trials})`);
if (values.hints !== "default" && values.hints !== "direct")
  throw new Error(`--hints is default or direct (got ${values.hints})`);

Runtime.install({ logger: new DefaultLogger("WARN") });
const install = await installRealModel();
const [llama, server, bundle] = await Promise.all([
  startLlamaServer(install, { restartOnCrash: true }),
  startDevServer(),
  bundleAgentWorkflows(),
]);
console.log(
  `eval:real: ${install.model.description} at ${llama.baseURL}; ${cases.length} cases x ${trials} trials, contract off and on (${values.hints} hints)`,
);

function coachWith(contract: boolean): Agent {
  const model = ai.openai(llama.modelId, { baseURL: llama.baseURL, extraBody: { max_tokens: 256 } });
  const coach = createCoach({ contract, model });
  if (!contract || values.hints === "default") return coach;
  const { actWhenAsked } = coach.options;
  return ai.agent({
    ...coach.options,
    actWhenAsked: { ...actWhenAsked!, hint: DIRECT_HINTS.act },
    onToolRefusal: { retries: 1, hint: DIRECT_HINTS.refusal },
  });
}

async function evaluate(label: string, agent: Agent): Promise<EvalReport> {
  const taskQueue = `eval-real-${label}`;
  const worker = await createAgentWorker({
    agents: [agent],
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue,
    workflowBundle: { code: bundle.code },
  });
  const started = Date.now();
  const report = await worker.runUntil(
    agent.eval({
      cases,
      scorers,
      trials,
      concurrency,
      client: server.env.client,
      taskQueue,
      onCaseFinished: (p) => console.log(`  [${label}] ${p.case}: ${p.outcomes.join(" ")} (${p.finished}/${p.total})`),
    }),
  );
  console.log(`\n== contract ${label} (${((Date.now() - started) / 60_000).toFixed(1)} min) ==\n${report.toTable()}\n`);
  return report;
}

try {
  // Side by side, each with its own worker: both share the model server (and the machine's load) alike.
  const [off, on] = await Promise.all([evaluate("off", coachWith(false)), evaluate("on", coachWith(true))]);
  console.log("== compareReports(off, on) ==");
  console.log(formatComparison(compareReports(off, on)));
  if (values.json) {
    mkdirSync(values.json, { recursive: true });
    writeFileSync(join(values.json, "off.json"), JSON.stringify(off, null, 2));
    writeFileSync(join(values.json, "on.json"), JSON.stringify(on, null, 2));
    console.log(`reports written to ${values.json}/off.json and on.json`);
  }
  console.log(
    `llama-server crashes (restarted each time): ${llama.crashes.length}${llama.crashes.map((c) => `\n  ${c.at.toISOString()} ${c.exit}: ${c.output.trim().split("\n").slice(-3).join(" | ")}`).join("")}`,
  );
} finally {
  await llama.stop();
  await server.stop();
}
