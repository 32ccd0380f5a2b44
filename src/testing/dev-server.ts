/** A local Temporal dev server (the `temporal` CLI's `server start-dev`), for tests and the demo. */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { SEARCH_ATTRIBUTES } from "../contract/search-attributes.js";

/** A running dev server. */
export interface DevServer {
  /** The gRPC address, `host:port`. */
  readonly address: string;
  /** The Web UI's URL, when the UI is on. */
  readonly uiUrl: string | undefined;
  /** Where the CLI came from: `TEMPORAL_CLI_PATH`, the PATH, or the SDK's download. */
  readonly executable: string;
  /** The Temporal test environment (client, native connection). */
  readonly env: TestWorkflowEnvironment;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Options of `startDevServer`. */
export interface DevServerOptions {
  port?: number;
  /** Turns the Web UI on at this port. */
  uiPort?: number;
  /** Persist state in this SQLite file (so a restart keeps runs). */
  dbFilename?: string;
  /** More `temporal server start-dev` flags, e.g. `--dynamic-config-value`. */
  extraArgs?: string[];
}

/** The `temporal` CLI: `TEMPORAL_CLI_PATH`, else the first on the PATH, else undefined. */
export function findTemporalCli(): string | undefined {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "temporal");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * Starts `temporal server start-dev` with the CLI found locally, else the one the SDK downloads,
 * with durable-agent's search attributes registered.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = findTemporalCli();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: "existing-path", path: cli } : { type: "cached-download" },
      port: options.port,
      uiPort: options.uiPort,
      ui: options.uiPort !== undefined,
      dbFilename: options.dbFilename,
      extraArgs: options.extraArgs,
      searchAttributes: Object.values(SEARCH_ATTRIBUTES),
    },
  });
  return {
    address: env.address,
    uiUrl: options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined,
    executable: cli ?? "SDK download",
    env,
    stop: () => env.teardown(),
  };
}
