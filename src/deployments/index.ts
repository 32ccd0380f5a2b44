/** Worker Deployments: a worker as one build of a deployment, and the client calls that switch and describe builds. */
export { workerDeploymentOptionsOf, type WorkerDeployment } from "./deployment-options.js";
export {
  describeDeployment,
  setCurrentBuild,
  type DeploymentBuild,
  type DeploymentCallOptions,
  type DeploymentDescription,
} from "./deployment-client.js";
