/** What the CLI says of a workflow id its namespace does not hold (`trace`, `approve`, `reject`, `cancel`). */
import type { CliConnection } from "./connection-options.js";

/** The message, naming the namespace and how to find runs. */
export function noSuchRun(workflowId: string, connection: CliConnection): string {
  return (
    `No run with workflow id "${workflowId}" in namespace "${connection.settings().namespace}": check ` +
    `the id (\`durable-agent list\` shows recent runs) or --namespace.`
  );
}
