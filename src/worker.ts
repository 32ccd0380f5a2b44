/**
 * The worker: serves agents' runs. `ai.worker({ agents })` in code, or run `worker-main.ts` with
 * `DURABLE_AGENT_AGENTS=./path/to/agents.js` to serve the agents that module exports.
 * It is the package's `durable-agent/worker` entry, which the root loads only when `ai.worker()`
 * (or a workflow bundle) is asked for (`lazy-worker.ts`): what it imports never loads with the root.
 */
import type { DataConverter } from "@temporalio/common";
import { NativeConnection, Runtime, Worker, type WorkerOptions } from "@temporalio/worker";
import type { Agent } from "./facade/define-agent.js";
import type { ApprovalOptions } from "./approvals/approval-options.js";
import { workerDeploymentOptionsOf, type WorkerDeployment } from "./deployments/deployment-options.js";
import { createActivities, createRegistry } from "./activities/index.js";
import { dataConverterFromEnv } from "./codec/data-converter.js";
import { temporalSecurity, temporalSettings, type TemporalSecurity } from "./client/connection.js";
import { AgentOptionsError, TemporalConnectionError } from "./errors.js";
import { mcpConnectionsPlugin } from "./mcp/worker-plugin.js";
import { withSubAgents } from "./subagents/collect-agents.js";
import { bundleAgentWorkflows } from "./workflow-bundle.js";
import type { TelemetryOptions } from "./telemetry/telemetry-options.js";
import { bundleTelemetryWorkflows } from "./telemetry/telemetry-workflow-bundle.js";
import { telemetryWorkerOptions } from "./telemetry/worker-telemetry.js";
import { defined } from "./core/defined.js";
import { answerHeartbeat, STREAMING_HEARTBEAT_INTERVAL } from "./streaming/worker/index.js"; // the answer heartbeat and its cadence
import { loadDataConverter } from "@temporalio/common/lib/internal-non-workflow/index.js";
import { deltasFromEnv, type DeltaTransport } from "./deltas/index.js";
import { checkSearchAttributes } from "./search-attribute-check.js";

export { bundleAgentWorkflows, workflowsPath } from "./workflow-bundle.js";
export { bundleTelemetryWorkflows } from "./telemetry/telemetry-workflow-bundle.js";

/** Options of `ai.worker()`. */
export interface AgentWorkerOptions {
  /**
   * Set the search attributes DurableAgentName, DurableAgentStopReason, DurableAgentTrips,
   * DurableAgentReprompts, DurableAgentRefusals, DurableAgentTokens and DurableAgentVersion on
   * every run, DurableAgentCostUsd when the model has pricing, DurableAgentBackstopRan once a
   * backstop runs, and DurableAgentForkedFrom on forks, to filter runs in the UI and the studio.
   * They must be registered on the server first (the dev server helper does; see
   * docs/operating-runs.md): the worker checks at its start and rejects with a
   * `SearchAttributesNotRegisteredError` naming the missing ones (when the server lets it list
   * them; otherwise it warns that it skipped the check). Default off.
   */
  searchAttributes?: boolean;
  /** The agents this worker serves; names must be unique. Their sub-agents (`asTool`) and handoff targets are served too, without being listed. */
  agents: Agent[];
  /** Default `TEMPORAL_TASK_QUEUE`, else `durable-agent`. */
  taskQueue?: string;
  /**
   * A connection to reuse; default one to `TEMPORAL_ADDRESS` (else localhost:7233), with TLS and
   * API key from `tls`/`apiKey` or the environment (`TEMPORAL_TLS*`, `TEMPORAL_API_KEY`).
   */
  connection?: NativeConnection;
  /** TLS for the default connection; default from `TEMPORAL_TLS`, `TEMPORAL_TLS_CERT`/`_KEY`/`_CA`/`_SERVER_NAME`. */
  tls?: TemporalSecurity["tls"];
  /** API key for the default connection (Temporal Cloud); default `TEMPORAL_API_KEY`. */
  apiKey?: string;
  /** Payload encoding, e.g. `encryptedDataConverter(keys)`; default encryption from `DURABLE_AGENT_CODEC_KEYS`, else none. */
  dataConverter?: DataConverter;
  /** Default `TEMPORAL_NAMESPACE`, else `default`. */
  namespace?: string;
  /**
   * Where streamed answers' deltas go besides the model call's heartbeats (which are always sent:
   * watchers read them when the transport is down): `ai.deltas.redis({ url })` publishes each
   * answer's deltas once to Redis; `ai.deltas.heartbeats()` sends heartbeats only. Default: Redis
   * at `DURABLE_AGENT_REDIS_URL` when it is set, else heartbeats. A failed publish never fails a
   * model call: the worker warns once and the heartbeats carry the answer.
   */
  deltas?: DeltaTransport;
  /** A prebuilt bundle from `bundleAgentWorkflows()`, to skip bundling (useful in tests). */
  workflowBundle?: WorkerOptions["workflowBundle"];
  /**
   * OpenTelemetry spans for runs, trips (model calls), tool calls, backstops and contract checks,
   * through Temporal's OpenTelemetry interceptors; off by default. Needs `spanProcessor`. Without a
   * `workflowBundle`, the workflow is bundled with the interceptors (`bundleTelemetryWorkflows()`).
   */
  telemetry?: TelemetryOptions;
  /**
   * Who may approve or reject calls that wait for approval: `canDecide({ by, tool, input, agent,
   * approve })` runs on this worker; a refusal fails the caller's decision with
   * `ApprovalRefusedError` and the call keeps waiting. Default: everyone may decide.
   */
  approvals?: ApprovalOptions;
  /**
   * Run as one build of a Temporal Worker Deployment: `{ name, buildId, behavior? }`. Runs are
   * pinned to the build they started on by default; sessions move to the current build when they
   * continue as new. Switch builds with `durable-agent deployment set-current <name> <buildId>`.
   * Default: an unversioned worker (every worker of the task queue serves every run).
   */
  deployment?: WorkerDeployment;
  /**
   * The bytes of conversations the worker keeps for its model calls (their messages as JSON; least
   * recently used out first, and at most 2,048 runs), so a call reads from the run only what the
   * worker does not hold. Default 256 MiB (`268435456`); 0 keeps none.
   */
  conversationCacheBytes?: number;
  /**
   * Passed through to Temporal's `Worker.create` (for example `maxCachedWorkflows`).
   * `maxHeartbeatThrottleInterval` defaults to 250 ms here: the cadence of streamed text deltas.
   * `stickyQueueScheduleToStartTimeout` defaults to 1 s here (Temporal's is 10 s): a workflow task
   * that waits on a dead worker's sticky queue moves to the task queue after it, so a worker crash
   * costs the model call's heartbeat timeout and about a second, not 10 s more.
   */
  workerOptions?: Partial<
    Omit<
      WorkerOptions,
      "taskQueue" | "connection" | "namespace" | "activities" | "workflowBundle" | "workflowsPath" | "dataConverter"
    >
  >;
}

/** Creates a Temporal worker that runs the given agents. Call `run()` (or `runUntil()`) on it. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const agents = withSubAgents(options.agents); // sub-agents and handoff targets need not be listed
  const registry = createRegistry(agents);
  const cacheBytes = options.conversationCacheBytes;
  if (cacheBytes !== undefined && !(Number.isSafeInteger(cacheBytes) && cacheBytes >= 0))
    throw new AgentOptionsError(
      "conversationCacheBytes",
      `${String(cacheBytes)} is not a whole number of bytes, 0 or more`,
    );
  const settings = temporalSettings({ taskQueue: options.taskQueue, namespace: options.namespace });
  const dataConverter = options.dataConverter ?? dataConverterFromEnv();
  const deltas = options.deltas ?? deltasFromEnv();
  await deltas.load();
  const connection = options.connection ?? (await connectNative(settings.address, temporalSecurity(options)));
  await openMemoryStores(agents);
  if (options.searchAttributes) {
    // Before bundling: a namespace without the attributes fails here, naming them, not in every run's workflow task.
    await checkSearchAttributes(connection, settings.namespace, Runtime.instance().logger).catch(async (error) => {
      if (!options.connection) await connection.close();
      throw error;
    });
  }
  const telemetry = options.telemetry
    ? telemetryWorkerOptions(options.telemetry, agents, options.workerOptions)
    : undefined;
  return Worker.create({
    // Streamed answers reach subscribers through the model call's heartbeats: this is their cadence.
    maxHeartbeatThrottleInterval: STREAMING_HEARTBEAT_INTERVAL,
    // A crashed worker's runs go on elsewhere after a second, not Temporal's default 10 s (a live but busy
    // worker that misses it only replays the run's history once on another).
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT,
    ...options.workerOptions,
    ...telemetry,
    ...defined({ dataConverter }),
    ...(options.deployment ? { workerDeploymentOptions: workerDeploymentOptionsOf(options.deployment) } : {}),
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    workflowBundle: options.workflowBundle ?? (await (telemetry ? bundleTelemetryWorkflows() : bundleAgentWorkflows())),
    activities: createActivities(registry, {
      searchAttributes: options.searchAttributes,
      approvals: options.approvals,
      deltas: { transport: deltas, converter: loadDataConverter(dataConverter) },
      conversationCacheBytes: cacheBytes,
      answerStream: answerHeartbeat,
    }),
    plugins: [
      ...(options.workerOptions?.plugins ?? []),
      ...(agents.some((agent) => agent.mcpToolsets.length) ? [mcpConnectionsPlugin(agents)] : []),
    ],
  });
}

/** How long a workflow task waits on a worker's sticky queue before any worker of the task queue may take it. */
const STICKY_QUEUE_SCHEDULE_TO_START_TIMEOUT = "1 second";

async function connectNative(address: string, security: TemporalSecurity): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address, ...security });
  } catch (error) {
    throw new TemporalConnectionError(address, error);
  }
}

/**
 * Opens (and migrates) the agents' memory stores before the worker polls: PGlite's start-up holds
 * the event loop, which would starve the first memory activity's heartbeats. A store that cannot be
 * reached now is only a warning: the memory activities retry it, and their runs wait.
 */
async function openMemoryStores(agents: ReturnType<typeof withSubAgents>): Promise<void> {
  const memories = new Set(agents.flatMap((agent) => (agent.options.memory ? [agent.options.memory] : [])));
  await Promise.all(
    [...memories].map((memory) =>
      memory
        .opened()
        .catch((error: unknown) =>
          Runtime.instance().logger.warn(
            `memory store (${memory.store.kind}) could not be opened at start: ${(error as Error).message}; the memory activities retry it`,
          ),
        ),
    ),
  );
}
