/** Runs the `durable-agent` CLI as a child process against the suite's Temporal server. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { inject } from "vitest";
import { main } from "../../src/cli/index.js";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI child: the suite's server, no model or task queue settings of the parent's. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "TEMPORAL_TASK_QUEUE",
    "TEMPORAL_NAMESPACE",
    "DURABLE_AGENT_CODEC_KEYS",
    "DURABLE_AGENT_CODEC_KEY_ID",
  ])
    delete base[name];
  return { ...base, TEMPORAL_ADDRESS: inject("temporalAddress"), ...env };
}

/** A CLI child that keeps running (`worker`, `dev`): wait for a line, then stop it with a signal. */
export interface CliProcess {
  child: ChildProcess;
  /** Resolves with the first line of stdout (or stderr) containing `text`; rejects if the process exits first. */
  waitForLine(text: string, stream?: "stdout" | "stderr"): Promise<string>;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  exited: Promise<Exit>;
}

/** Starts the CLI from source: node --import tsx --conditions=durable-agent-source src/cli/index.ts ... */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
  entry = ["--import", "tsx", "--conditions=durable-agent-source", "src/cli/index.ts"],
): CliProcess {
  const child = spawn(process.execPath, [...entry, ...args], { env: cliEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const lines = {
    stdout: createInterface({ input: child.stdout! }),
    stderr: createInterface({ input: child.stderr! }),
  };
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    exited,
    waitForLine: (text, stream = "stdout") =>
      new Promise((resolve, reject) => {
        lines[stream].on("line", (line) => line.includes(text) && resolve(line));
        exited.then((exit) =>
          reject(
            new Error(
              `the CLI exited (${exit.code ?? exit.signal}) before printing "${text}":\n${exit.stdout}\n${exit.stderr}`,
            ),
          ),
        );
      }),
    stop: (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to its end. */
export function cli(args: string[], env: Record<string, string> = {}, entry?: string[]): Promise<Exit> {
  return startCli(args, env, entry).exited;
}

/** Runs the CLI's `main` in this process, capturing what it prints (no child process: for arguments it rejects, or commands against servers this process runs). */
export async function runMain(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    write: (text) => out.push(text),
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}
