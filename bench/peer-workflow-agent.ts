/**
 * The streaming benchmark's WorkflowAgent peer (issue 33): `@ai-sdk/workflow`'s WorkflowAgent on
 * the Workflow DevKit's local world (files on disk, queue messages over loopback HTTP; no hosted
 * service). It lives in bench/peer-workflow-agent with a package.json of its own (the library's
 * dependencies do not grow) and needs Node 22, which npm's `node@22` package provides. Here:
 * install it (`npm install` from its lockfile, when that changed), build its workflow (`workflow build`, when
 * its sources changed), start its app server (the flow route and POST /run) in a child process,
 * and run one streamed conversation over HTTP, reading the run's stream as the client would.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lineChild } from "./line-child.js";
import { MODEL_ID, TOOL_DESCRIPTION, TOOL_NAME } from "./scenario.js";

const DIR = fileURLToPath(new URL("./peer-workflow-agent/", import.meta.url));

/** The peer could not be installed: the benchmark skips it and prints this. */
export class WorkflowAgentInstallError extends Error {
  override readonly name = "WorkflowAgentInstallError";
}

function run(command: string, args: string[]): { ms: number; stdout: string } {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: DIR, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} in bench/peer-workflow-agent failed (${result.status}): ${result.stderr}`,
    );
  return { ms: Date.now() - started, stdout: result.stdout };
}

const mtime = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** How the peer was made ready: its Node 22, and how long the install and the build took (0: up to date). */
export interface WorkflowAgentPeer {
  node: string;
  installMs: number;
  buildMs: number;
}

/** Installs and builds the peer when needed; throws WorkflowAgentInstallError if Node 22 or the install fails. */
export function prepareWorkflowAgentPeer(): WorkflowAgentPeer {
  let node: string;
  let installMs = 0;
  try {
    node = run("npx", ["-y", "node@22", "-p", "process.execPath"]).stdout.trim();
    const installed = join(DIR, "node_modules/.package-lock.json");
    // `npm install` from the lockfile, not `npm ci`: cbor-extract's optional per-platform packages
    // (under @workflow/cli's world-vercel) 404 on this registry, so npm leaves them out of the lockfile
    // and `npm ci` refuses it as out of sync; `npm install` installs the same tree.
    if (mtime(installed) < mtime(join(DIR, "package-lock.json")))
      installMs = run("npm", ["install", "--no-audit", "--no-fund"]).ms;
  } catch (error) {
    throw new WorkflowAgentInstallError((error as Error).message);
  }
  const sources = [
    join(DIR, "package-lock.json"),
    ...readdirSync(join(DIR, "workflows")).map((f) => join(DIR, "workflows", f)),
  ];
  const flow = join(DIR, ".well-known/workflow/v1/flow.mjs");
  const buildMs =
    mtime(flow) < Math.max(...sources.map(mtime))
      ? run(node, [join(DIR, "node_modules/workflow/bin/run.js"), "build"]).ms
      : 0;
  return { node, installMs, buildMs };
}

/** One streamed conversation's figures: when the client saw text, and the run's event log. */
export interface WorkflowAgentRun {
  firstDeltaAt?: number;
  lastDeltaAt?: number;
  events: number;
  eventBytes: number;
}

/** The peer's app server in a child process (Node 22), on a local world of its own in a temporary folder. */
export async function startWorkflowAgentApp(node: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-workflow-agent-"));
  const child = spawn(node, ["--no-warnings", "server.ts"], {
    cwd: DIR,
    env: { ...process.env, WORKFLOW_LOCAL_DATA_DIR: dataDir, WORKFLOW_TARGET_WORLD: "local" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const { next, exited, cpuMs } = lineChild(child, "the WorkflowAgent app server");
  const port = Number((await next("ready ")).slice(6));
  return {
    exited,
    cpuMs,
    /** Starts a run of `trips` model calls against the model at `baseURL` and reads its stream to the end. */
    async run(prompt: string, baseURL: string): Promise<WorkflowAgentRun> {
      const response = await fetch(`http://127.0.0.1:${port}/run`, {
        method: "POST",
        body: JSON.stringify({
          prompt,
          options: { baseURL, modelId: MODEL_ID, toolName: TOOL_NAME, toolDescription: TOOL_DESCRIPTION },
        }),
      });
      if (!response.ok || !response.body) throw new Error(`POST /run answered ${response.status}`);
      let firstDeltaAt: number | undefined;
      let lastDeltaAt: number | undefined;
      let done: { events: number; eventBytes: number } | undefined;
      let rest = "";
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const parts = (rest + read.value).split("\n");
        rest = parts.pop()!;
        for (const line of parts.filter(Boolean)) {
          const part = JSON.parse(line) as { type: string; events: number; eventBytes: number };
          if (part.type === "text-delta") {
            lastDeltaAt = Date.now();
            firstDeltaAt ??= lastDeltaAt;
          } else if (part.type === "bench-done") done = part;
        }
      }
      if (!done) throw new Error("the WorkflowAgent run's stream ended without its result");
      return { firstDeltaAt, lastDeltaAt, events: done.events, eventBytes: done.eventBytes };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const stopped = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await stopped;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
