/**
 * The example app in examples/chat, as the browser tests use it: installed (its own
 * package.json; durable-agent as a packed copy of this repository's build, as a user gets it,
 * without npm building the package again: test/support/package-build.ts),
 * built for production with `next build` (skipped when `.next` is up to date for the sources and
 * the package), served with `next start`, and its agents served by a `durable-agent worker`
 * child process that a test can SIGKILL and start again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ensurePackageBuilt, npmCiWithoutPrepare, REPO, runCommand as run } from "./package-build.js";

/** The example's folder. */
export const EXAMPLE = join(REPO, "examples/chat");

const STAMP = join(EXAMPLE, ".next/durable-agent-sources.sha256");
/** The example's own sources: what `next build` reads besides its node_modules. */
const SOURCES = ["app", "lib", "agents.ts", "next.config.ts", "tsconfig.json", "package-lock.json"];

function filesUnder(path: string, skip: RegExp = /^$/): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: "utf8" })
    .map((name) => join(path, name))
    .filter((file) => statSync(file).isFile() && !skip.test(file))
    .sort();
}

function hashFiles(root: string, files: string[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex");
}

/** What the package's `files` ship of dist (no tests). */
function distHash(packageDir: string): string {
  return hashFiles(packageDir, filesUnder(join(packageDir, "dist"), /\.test\./));
}

/** How long each step of getting the example ready took (ms), 0 for a step that was up to date. */
export interface ChatExampleBuild {
  rootBuildMs: number;
  installMs: number;
  refreshMs: number;
  nextBuildMs: number;
}

/**
 * Installs and builds the example when needed: the package's build when src/ is newer than
 * dist/, `npm ci` in the example (packing that build, not building it again) when its lockfile or
 * the package's dependencies changed, a fresh packed copy of durable-agent when dist/ changed, and
 * `next build` when any of that or the example's sources changed.
 */
export function ensureChatExample(): ChatExampleBuild {
  const times: ChatExampleBuild = { rootBuildMs: 0, installMs: 0, refreshMs: 0, nextBuildMs: 0 };
  times.rootBuildMs = ensurePackageBuilt();

  const copy = join(EXAMPLE, "node_modules/durable-agent");
  const installed = join(EXAMPLE, "node_modules/.package-lock.json");
  const dependencies = (dir: string) =>
    JSON.stringify(
      (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies?: unknown }).dependencies,
    );
  if (
    !existsSync(installed) ||
    !existsSync(copy) ||
    statSync(join(EXAMPLE, "package-lock.json")).mtimeMs > statSync(installed).mtimeMs ||
    dependencies(copy) !== dependencies(REPO)
  )
    times.installMs = npmCiWithoutPrepare(EXAMPLE);
  else if (distHash(copy) !== distHash(REPO)) times.refreshMs = refreshPackedCopy(copy);

  const stamp =
    hashFiles(
      EXAMPLE,
      SOURCES.flatMap((name) => filesUnder(join(EXAMPLE, name))),
    ) + distHash(copy);
  if (!existsSync(join(EXAMPLE, ".next/BUILD_ID")) || !existsSync(STAMP) || readFileSync(STAMP, "utf8") !== stamp) {
    times.nextBuildMs = run(process.execPath, [join(EXAMPLE, "node_modules/next/dist/bin/next"), "build"], EXAMPLE);
    writeFileSync(STAMP, stamp);
  }
  return times;
}

/** Replaces the example's copy of durable-agent with a fresh `npm pack` of the repository (what install-links installs). */
function refreshPackedCopy(copy: string): number {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "durable-agent-pack-"));
  try {
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], REPO);
    const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"))!;
    rmSync(copy, { recursive: true, force: true });
    run("mkdir", ["-p", copy], REPO);
    run("tar", ["-xzf", join(dir, tarball), "-C", copy, "--strip-components=1"], REPO);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return Date.now() - started;
}

/** Every file the example's API routes trace for deployment (`.next/server/app/api/**\/*.nft.json`), as absolute paths. */
export function routeTracedFiles(): Map<string, string[]> {
  const traces = new Map<string, string[]>();
  for (const file of filesUnder(join(EXAMPLE, ".next/server/app/api")).filter((f) => f.endsWith(".nft.json"))) {
    const { files } = JSON.parse(readFileSync(file, "utf8")) as { files: string[] };
    traces.set(
      relative(EXAMPLE, file),
      files.map((traced) => join(file, "..", traced)),
    );
  }
  return traces;
}

/** A child process of the example (the Next.js server or a worker), with its output so far. */
export interface ExampleProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  what: string,
): Promise<ExampleProcess> {
  const child = spawn(process.execPath, args, {
    cwd: EXAMPLE,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handle: ExampleProcess = {
    child,
    output: () => output,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve(handle);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(() =>
      reject(new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`)),
    );
  });
}

/** Serves the built example with `next start` on `port`, connecting to Temporal as `env` says. */
export function startChatServer(port: number, env: Record<string, string>): Promise<ExampleProcess> {
  return startProcess(
    [join(EXAMPLE, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    env,
    /Ready in/,
    "next start",
  );
}

/** Starts `durable-agent worker ./agents.ts` (the example's installed CLI) with a prebuilt workflow bundle. */
export function startChatWorker(workflowBundle: string, env: Record<string, string>): Promise<ExampleProcess> {
  return startProcess(
    [
      join(EXAMPLE, "node_modules/durable-agent/bin/durable-agent.js"),
      "worker",
      "./agents.ts",
      "--workflow-bundle",
      workflowBundle,
    ],
    env,
    /durable-agent worker: serving/,
    "durable-agent worker",
  );
}
