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

/** Makes `buildId` the deployment's current build: new runs (and auto-upgrade runs) go to it. A worker of that build must have polled. */
export async function setCurrentBuild(name: string, buildId: string, options: DeploymentCallOptions = {}): Promise<void> {
  const client = options.client ?? (await getDefaultClient());
  await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: client.options.namespace, deploymentName: name, buildId, identity: client.options.identity ?? "durable-agent" });
}

/** The deployment's builds, which is current, and how many runs each still has open. */
export async function describeDeployment(name: string, options: DeploymentCallOptions = {}): Promise<DeploymentDescription> {
  const client = options.client ?? (await getDefaultClient());
  const { namespace } = client.options;
  const { workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({ namespace, deploymentName: name });
  const currentBuildId = info?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  const builds = await Promise.all(
    (info?.versionSummaries ?? []).map(async (summary): Promise<DeploymentBuild> => {
      const buildId = summary.deploymentVersion?.buildId ?? "";
      const { count } = await client.workflow.count(`TemporalWorkerDeploymentVersion = "${name}:${buildId}" AND ExecutionStatus = "Running"`);
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
