/**
 * The layering of src/, as dependency-cruiser `forbidden` rules. test/import-graph.test.ts runs
 * them over src/ (type-only and dynamic imports included) and over fixtures that break each rule,
 * so a rule that could never fail is caught too. docs/architecture.md draws the same picture.
 */
/** Workflow code: what the workflow bundle runs, deterministic and replayed. */
const WORKFLOW_CODE = "^src/(workflows|workflow-entry)/";
/** The shared plain-data core, the typed errors and the contract's decisions: workflow-safe, imported by every side. */
const CORE = "^src/(core/|contract/|errors\\.ts$)";

/**
 * The ranks of src/, from the ground up: a module imports only its own rank and lower ones (type-only
 * and dynamic imports included), so no import climbs, and code a lower rank needs moves down.
 * A folder (`name/`) or a file directly in src/ (`name.ts`); every module of src/ has one rank.
 */
const RANKS = [
  // 0. Plain data, pure decisions and typed errors: workflow-safe, imported by every side.
  { rank: "ground", paths: ["core/", "contract/", "errors.ts", "limits.ts", "duration.ts"] },
  // 1. Stand on the ground alone: the option checks models and agents share, the payload codec,
  //    the scripted model servers and the dev server (`durable-agent/testing`).
  { rank: "standalone", paths: ["options/", "codec/", "http/", "testing/"] },
  // 2. `ai.openai()` and AI SDK models: references (data) and the worker-side model clients.
  { rank: "models", paths: ["models/"] },
  // 3. Workflow code (deterministic, replayed), and the workflow-safe entry for users' own workflows.
  { rank: "workflows", paths: ["workflows/", "workflow-entry/"] },
  // 4. Definitions: `ai.agent()`'s options and their checks, `ai.tool()`, `ai.mcp()`, `ai.activityTool()`, sub-agents and handoffs,
  //    and `ai.memory()` with its stores (the worker's memory activities read them).
  { rank: "definitions", paths: ["agent/", "mcp/", "subagents/", "remote-tools/", "memory/"] },
  // 5. Reads of a run over the Temporal client (the activities', the streaming wing's and the client's),
  //    and the delta transports (the answer in flight, between the worker and the watchers).
  { rank: "reads-and-deltas", paths: ["run-reads/", "deltas/"] },
  // 6. The worker: activities, the streaming wing's worker half (the answer heartbeat the worker hands the model call), approvals' activity, telemetry, the workflow bundle, its start-up checks.
  {
    rank: "activities",
    paths: [
      "activities/",
      "streaming/worker/",
      "approvals/",
      "telemetry/",
      "workflow-bundle.ts",
      "search-attribute-check.ts",
    ],
  },
  // 7. The client: start, run handles, sessions over the Temporal client; the streaming wing's client half.
  { rank: "client", paths: ["client/", "streaming/client/"] },
  // 8. Built on the client: chat routes and the browser's chat transport, the MCP and A2A servers, schedules,
  //    webhooks, evals, recorded runs as datasets, forks, deployments.
  {
    rank: "over-the-client",
    paths: [
      "chat/",
      "ui/",
      "mcp-server/",
      "a2a/",
      "schedules/",
      "webhooks/",
      "datasets/",
      "eval/",
      "fork/",
      "deployments/",
    ],
  },
  // 9. The façade: the `Agent` class of `ai.agent()`, joining a definition to the client and evals.
  { rank: "facade", paths: ["facade/"] },
  // 10. Applications: the studio, the CLI, the worker (`durable-agent/worker`).
  { rank: "apps", paths: ["studio/", "cli/", "worker.ts"] },
  // 11. The root entry (`durable-agent`) and its lazy loaders, and the worker process (`npm run worker`, the image).
  { rank: "entries", paths: ["index.ts", "worker-main.ts", "lazy-worker.ts", "lazy-studio.ts"] },
];

/** A path regex for a list of RANKS paths. */
const pathsOf = (paths) =>
  `^src/(${paths.map((p) => p.replace(/\./g, "\\.") + (p.endsWith("/") ? "" : "$")).join("|")})`;

/** One rule per rank: its modules import nothing of a higher rank. */
const rankRules = RANKS.slice(0, -1).map(({ rank, paths }, index) => ({
  name: `rank-${index}-${rank}-imports-no-higher-rank`,
  comment: `src/ ${paths.join(", ")} (rank ${index}, ${rank}) import only their own rank and lower ones.`,
  severity: "error",
  from: { path: pathsOf(paths) },
  to: { path: pathsOf(RANKS.slice(index + 1).flatMap((r) => r.paths)) },
}));

module.exports = {
  forbidden: [
    ...rankRules,
    {
      name: "every-module-has-a-rank",
      comment: "Every module of src/ sits in one of RANKS: a new folder gets a rank before it gets code.",
      severity: "error",
      from: { path: "^src/", pathNot: pathsOf(RANKS.flatMap((r) => r.paths)) },
      to: {},
    },
    {
      name: "no-circular",
      comment: "A concept never imports the thing built on it.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "workflow-code-imports-only-the-workflow-api-and-the-core",
      comment:
        "Workflow code imports only the workflow API (@temporalio/workflow, @temporalio/common, workflow streams), src/core, " +
        "src/contract, src/errors.ts and other workflow code: nothing that touches I/O, time, randomness or user code.",
      severity: "error",
      from: { path: WORKFLOW_CODE },
      to: {
        pathNot: [
          WORKFLOW_CODE,
          CORE,
          "^node_modules/@temporalio/(workflow|common)/",
          "^@temporalio/workflow-streams/workflow$",
          "^node_modules/@temporalio/workflow-streams/.*/workflow",
        ],
      },
    },
    {
      name: "the-workflow-entry-imports-only-the-workflow-api-and-the-core",
      comment:
        "durable-agent/workflow (src/workflow-entry) is bundled into users' own workflows: it imports only @temporalio/workflow, @temporalio/common, src/core, src/contract, src/errors.ts and the workflows' handler definitions, never an agent's module or worker code.",
      severity: "error",
      from: { path: "^src/workflow-entry/" },
      to: {
        pathNot: [
          "^src/workflow-entry/",
          CORE,
          "^src/workflows/definitions\\.ts$",
          "^node_modules/@temporalio/(workflow|common)/",
        ],
      },
    },
    {
      name: "the-core-imports-only-the-core",
      comment:
        "src/core, src/contract and src/errors.ts are plain data and pure functions: they import each other, fflate and @temporalio/common only.",
      severity: "error",
      from: { path: CORE },
      to: { pathNot: [CORE, "^node_modules/(fflate|@temporalio/common)/"] },
    },
    {
      name: "the-studio-page-imports-only-preact-and-the-api-types",
      comment:
        "The studio page (src/studio/page/app) runs in a browser, bundled by Vite: it imports its own modules, Preact and the studio's JSON API types, never Node built-ins or the server's code.",
      severity: "error",
      from: { path: "^src/studio/page/app/" },
      to: { pathNot: ["^src/studio/page/app/", "^src/studio/api-types\\.ts$", "^node_modules/preact/"] },
    },
    {
      name: "the-root-entry-loads-no-worker-code",
      comment:
        "Importing durable-agent loads no worker code (client-safe, for Next.js routes): src/worker.ts and what only it uses are loaded by a dynamic import when ai.worker() is called.",
      severity: "error",
      from: { path: "^src/index\\.ts$" },
      to: {
        path: [
          "^node_modules/@temporalio/(worker|core-bridge|testing)/",
          "^node_modules/(webpack|@swc)",
          "^src/(worker|workflow-bundle)\\.ts$",
          "^src/activities/",
          // The workflows' handler definitions (names of queries, updates, signals) are shared with the client.
          "^src/workflows/(?!definitions\\.ts$)",
          "^src/telemetry/telemetry-workflow-bundle\\.ts$",
        ],
        reachable: true,
      },
    },
  ],
};
