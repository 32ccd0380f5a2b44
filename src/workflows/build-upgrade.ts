/**
 * Sessions under Worker Deployments: a session stays on its build while it answers a message and
 * moves to the deployment's current build when it continues as new (after the build changed, or
 * when Temporal suggests it). Unversioned workers: nothing changes. Workflow-safe.
 */
import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
  type Workflow,
} from "@temporalio/workflow";
import type { WorkflowStream, WorkflowStreamState } from "@temporalio/workflow-streams/workflow";

/** Whether the deployment's current build is no longer the one this run is pinned to (always false for unversioned workers). */
export function currentBuildChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}

/** Continues as new; a run served by a Worker Deployment starts its next run on the current build (`initialVersioningBehavior: "AUTO_UPGRADE"`). */
export async function continueAsNewOnCurrentBuild<F extends Workflow>(
  stream: WorkflowStream,
  buildArgs: (state: WorkflowStreamState) => Parameters<F>,
): Promise<never> {
  if (workflowInfo().currentDeploymentVersion === undefined) return stream.continueAsNew<F>(buildArgs);
  stream.detachPollers();
  await condition(allHandlersFinished);
  return makeContinueAsNewFunc<F>({ initialVersioningBehavior: "AUTO_UPGRADE" })(...buildArgs(stream.getState()));
}
