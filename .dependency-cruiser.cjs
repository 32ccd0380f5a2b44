/**
 * The layering of src/, as dependency-cruiser `forbidden` rules. test/import-graph.test.ts runs
 * them over src/ (type-only and dynamic imports included) and over fixtures that break each rule,
 * so a rule that could never fail is caught too. docs/architecture.md draws the same picture.
 */
/** Workflow code: what the workflow bundle runs, deterministic and replayed. */
const WORKFLOW_CODE = "^src/(workflows|approvals/workflow)/";
/** The shared plain-data core, the typed errors and the contract's decisions: workflow-safe, imported by every side. */
const CORE = "^src/(core/|contract/|errors\\.ts$)";

module.exports = {
  forbidden: [
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
        "Workflow code imports only the workflow API (@temporalio/workflow, @temporalio/common, workflow streams), src/core, src/contract, src/errors.ts and other workflow code: nothing that touches I/O, time, randomness or user code.",
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
