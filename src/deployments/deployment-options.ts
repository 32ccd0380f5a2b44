/** `ai.worker({ deployment })`: the worker runs as one build of a Temporal Worker Deployment. Worker-side. */
import type { WorkerDeploymentOptions } from "@temporalio/worker";
import { AgentOptionsError } from "../errors.js";

/**
 * Which Worker Deployment and build a worker serves. With it, each run is served by the build it
 * started on ("pinned") or moves to the deployment's current build at its next workflow task
 * ("auto-upgrade"); new runs go to the current build (`durable-agent deployment set-current`).
 */
export interface WorkerDeployment {
  /** The deployment's name, the same for every build of these agents (e.g. "coach"). */
  name: string;
  /** This build's id, new for each deploy (e.g. a git SHA or "2026-12-01.1"). */
  buildId: string;
  /**
   * How runs started on this build behave when another build becomes current. Default "pinned":
   * a run finishes on the definition it started with (its instructions, tools and contract do
   * not change under it, and its history never needs another build's code). Sessions stay on
   * their build within a message and move to the current build when they continue as new.
   */
  behavior?: "pinned" | "auto-upgrade";
}

/** The SDK's `workerDeploymentOptions` for a deployment; throws `AgentOptionsError` naming a bad field. */
export function workerDeploymentOptionsOf(deployment: WorkerDeployment): WorkerDeploymentOptions {
  if (typeof deployment !== "object" || deployment === null)
    throw new AgentOptionsError("deployment", 'must be { name, buildId, behavior?: "pinned" | "auto-upgrade" }');
  for (const field of ["name", "buildId"] as const) {
    const value = deployment[field];
    if (typeof value !== "string" || !/^[\w.-]{1,255}$/.test(value))
      throw new AgentOptionsError(
        `deployment.${field}`,
        `must be 1-255 letters, digits, "_", "-" or "." (got ${JSON.stringify(value)})`,
      );
  }
  const behavior = deployment.behavior ?? "pinned";
  if (behavior !== "pinned" && behavior !== "auto-upgrade")
    throw new AgentOptionsError(
      "deployment.behavior",
      `must be "pinned" or "auto-upgrade" (got ${JSON.stringify(behavior)})`,
    );
  return {
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: behavior === "pinned" ? "PINNED" : "AUTO_UPGRADE",
  };
}
