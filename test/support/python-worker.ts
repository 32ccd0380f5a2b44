/**
 * A real Python Temporal worker for the remote-tool tests: `temporalio` from PyPI in a venv that
 * this set-up makes once in the package's cache, and test/fixtures/python/order_worker.py run as a
 * child process on its own task queue.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cacheDir } from "../../src/testing/temporal-cli.js";

/** The `temporalio` version the tests install from PyPI. */
export const TEMPORALIO_VERSION = "1.35.0";

const FIXTURES = fileURLToPath(new URL("../fixtures/python/", import.meta.url));
const run = promisify(execFile);

/** The venv's python, made on first use: `python3 -m venv` and `pip install temporalio==<version>`, in a folder renamed into place. */
export async function pythonWithTemporalio(): Promise<{ python: string; version: string }> {
  const venv = join(cacheDir(), `python-temporalio-${TEMPORALIO_VERSION}`);
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    mkdirSync(cacheDir(), { recursive: true });
    const staging = mkdtempSync(`${venv}.partial-`);
    try {
      await run(process.env.PYTHON ?? "python3", ["-m", "venv", staging]);
      await run(
        join(staging, "bin", "python"),
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `temporalio==${TEMPORALIO_VERSION}`],
        { maxBuffer: 16 * 1024 * 1024 },
      );
      // A venv's python finds its packages from its own path (pyvenv.cfg beside bin/): the rename keeps it whole.
      if (!existsSync(python)) renameSync(staging, venv);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const { stdout } = await run(python, [
    "-c",
    "import sys, temporalio; print(sys.version.split()[0], temporalio.__version__)",
  ]);
  return { python, version: stdout.trim() };
}

/** A running Python worker: its output lines as they come, and a hard kill. */
export interface PythonWorker {
  process: ChildProcess;
  /** Resolves with the first output line that matches. */
  line(pattern: RegExp): Promise<string>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

/** Starts order_worker.py on `taskQueue`; resolves once it polls. `env` adds to the process's environment. */
export async function startPythonWorker(
  python: string,
  address: string,
  taskQueue: string,
  env: Record<string, string>,
): Promise<PythonWorker> {
  const child = spawn(python, [join(FIXTURES, "order_worker.py"), address, taskQueue], {
    env: { ...process.env, ...env, PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return resolve(seen);
      waiters.push({ pattern, resolve });
      void exited.then(() =>
        reject(new Error(`the Python worker exited before printing ${pattern}: ${stderr.slice(-2000)}`)),
      );
    });
  await line(/^polling /);
  return {
    process: child,
    line,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
