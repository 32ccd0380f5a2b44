/** The client calls behind `durable-agent deployment set-current` and `describe`: Temporal's Worker Deployment API. */
import type { Client } from "@temporalio/client";
import { getDefaultClient } from "../client/connection.js";

/** Where a deployment call goes: a client (default: one from the environment) and its namespace. */
export interface DeploymentCallOptions {
  client?: Client;
}

/** One build of a deployment, as `describeDeployment` reports it. */
export interface DeploymentBuild {
  buildId: string;
  /** The server's status of the version: "current", "ramping", "draining", "drained", "inactive". */
  status: string;
  current: boolean;
  /** When the first worker of this build polled. */
  createdAt?: string;
  /** Runs still open on this build (pinned runs started on it, auto-upgrade runs not yet moved). */
  openRuns: number;
}

/** What `describeDeployment` returns. */
export interface DeploymentDescription {
  name: string;
  /** The build new runs go to; undefined before `setCurrentBuild`. */
  currentBuildId?: string;
  builds: DeploymentBuild[];
}

/** How long `setCurrentBuild` waits for the server to route the deployment's task queues to the new build. */
const ROUTING_WAIT_MS = 30_000;
/** How often it asks meanwhile. */
const ROUTING_POLL_MS = 100;
/** `ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS`: the switch has not reached every task queue yet. */
const ROUTING_IN_PROGRESS = 1;

/**
 * Makes `buildId` the deployment's current build: new runs (and auto-upgrade runs, at their next
 * workflow task) go to it. A worker of that build must have polled. Returns once the server reports
 * the switch has reached every task queue of the deployment (until then a task may still go to the
 * old build), waiting at most 30 s; a server that does not report it (before 1.28) is not waited for.
 */
export async function setCurrentBuild(
  name: string,
  buildId: string,
  options: DeploymentCallOptions = {},
): Promise<void> {
  const client = options.client ?? (await getDefaultClient());
  const { namespace } = client.options;
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName: name,
    buildId,
    identity: client.options.identity ?? "durable-agent",
  });
  for (const deadline = Date.now() + ROUTING_WAIT_MS; Date.now() < deadline;) {
    const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
      namespace,
      deploymentName: name,
    });
    if (info?.routingConfigUpdateState !== ROUTING_IN_PROGRESS) return;
    await new Promise((resolve) => setTimeout(resolve, ROUTING_POLL_MS));
  }
}

/** The deployment's builds, which is current, and how many runs each still has open. */
export async function describeDeployment(
  name: string,
  options: DeploymentCallOptions = {},
): Promise<DeploymentDescription> {
  const client = options.client ?? (await getDefaultClient());
  const { namespace } = client.options;
  const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
    namespace,
    deploymentName: name,
  });
  const currentBuildId = info?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  const builds = await Promise.all(
    (info?.versionSummaries ?? []).map(async (summary): Promise<DeploymentBuild> => {
      const buildId = summary.deploymentVersion?.buildId ?? "";
      const { count } = await client.workflow.count(
        `TemporalWorkerDeploymentVersion = "${name}:${buildId}" AND ExecutionStatus = "Running"`,
      );
      const seconds = summary.createTime?.seconds;
      return {
        buildId,
        status: statusName(summary.status),
        current: buildId === currentBuildId,
        ...(seconds != null ? { createdAt: new Date(Number(seconds) * 1000).toISOString() } : {}),
        openRuns: count,
      };
    }),
  );
  return { name, ...(currentBuildId ? { currentBuildId } : {}), builds };
}

const STATUS_NAMES = ["unspecified", "inactive", "current", "ramping", "draining", "drained", "created"];

/** `WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT` (2) → "current". */
function statusName(status: number | null | undefined): string {
  return STATUS_NAMES[status ?? 0] ?? String(status);
}
