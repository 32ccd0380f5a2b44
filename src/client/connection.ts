import { Client, Connection } from "@temporalio/client";
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS } from "../contract/constants.js";
import { TemporalConnectionError } from "../errors.js";

/** Where the Temporal server is. Defaults: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TASK_QUEUE`, else localhost:7233, default, durable-agent. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Settings from options, then the environment, then defaults. */
export function temporalSettings(overrides: Partial<TemporalSettings> = {}): TemporalSettings {
  return {
    address: overrides.address ?? process.env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: overrides.namespace ?? process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE,
    taskQueue: overrides.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  };
}

/** Connects a Temporal client, turning a failure into a `TemporalConnectionError` that names the address. */
export async function connectClient(overrides: Partial<TemporalSettings> = {}): Promise<Client> {
  const { address, namespace } = temporalSettings(overrides);
  try {
    const connection = await Connection.connect({ address, connectTimeout: "5s" });
    return new Client({ connection, namespace });
  } catch (error) {
    throw new TemporalConnectionError(address, error);
  }
}

let defaultClient: Promise<Client> | undefined;

/** The process-wide client used when a run is given none; connected on first use from the environment. */
export function getDefaultClient(): Promise<Client> {
  defaultClient ??= connectClient().catch((error) => {
    defaultClient = undefined;
    throw error;
  });
  return defaultClient;
}
