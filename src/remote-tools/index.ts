/** Remote tools: an activity or a workflow of another worker, in any SDK language, as an agent's tool. */
export {
  defineActivityTool,
  defineWorkflowTool,
  type ActivityToolOptions,
  type ActivityToolTimeouts,
  type RemoteToolOptions,
  type WorkflowToolOptions,
  type WorkflowToolTimeouts,
} from "./define-remote-tool.js";
