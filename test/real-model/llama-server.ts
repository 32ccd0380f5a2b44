/** Starts the installed `llama-server` on 127.0.0.1 (a free port) and waits until its model is loaded. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import type { RealModelInstall } from "./install.js";

/** A running `llama-server`. */
export interface LlamaServer {
  /** The OpenAI-compatible API: `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  /** The model id it answers to (llama-server serves one model, whatever id a request names). */
  readonly modelId: string;
  /** Its last lines of output, for an error message. */
  output(): string;
  /** Crashes it restarted from (with `restartOnCrash`): each one's exit and last output. */
  readonly crashes: readonly LlamaCrash[];
  stop(): Promise<void>;
}

/** A `llama-server` that exited while in use. */
export interface LlamaCrash {
  /** When it exited. */
  at: Date;
  /** Its exit code or signal. */
  exit: string;
  /** Its last lines of output. */
  output: string;
}

/** Options of `startLlamaServer`. */
export interface LlamaServerOptions {
  /**
   * Restart the server on the same port when it exits while in use, recording each crash in
   * `crashes` (default false: the suite's tests should fail on a crash; a long eval should go on,
   * and the model call's retries carry its runs over the restart).
   */
  restartOnCrash?: boolean;
  /**
   * Serve OpenAI's `/v1/embeddings` (mean-pooled hidden states): `--embeddings --pooling mean`, one
   * sequence, a batch that holds a whole input. llama.cpp's help says that flag restricts a server to
   * embeddings ("use only with dedicated embedding models"); the build here still answered a chat
   * request with it, but the suite leaves its chat server's settings alone and starts a second
   * server on the same GGUF (the file is mapped, so its pages are shared) for embeddings.
   */
  embeddings?: boolean;
}

/** Sequences decoded at once (`DURABLE_AGENT_LLAMA_PARALLEL`, else 2); the context is split between them. Decoding several costs little more than one on a CPU. */
const PARALLEL = Number(process.env.DURABLE_AGENT_LLAMA_PARALLEL) || 2;
/** Tokens of context per sequence. */
const CONTEXT_PER_SEQUENCE = 4096;
/**
 * Threads per decode: `DURABLE_AGENT_LLAMA_THREADS`, else every core (up to 4) on a quiet machine
 * and 1 on a busy one (load average at least the core count). ggml's threads wait for each other
 * at every step: measured on 2 cores under load, 1 thread generated 7.2 tokens/s and 2 threads 0.5.
 */
function threads(): number {
  const cores = availableParallelism();
  return Number(process.env.DURABLE_AGENT_LLAMA_THREADS) || (loadavg()[0]! >= cores ? 1 : Math.min(cores, 4));
}
/**
 * Tokens an embedding request may carry: with mean pooling on a causal model llama.cpp cannot split
 * an input across batches, so the batch (and the context) is this size.
 */
const EMBEDDING_TOKENS = 2048;
/** The first load reads the whole GGUF from disk; on a busy 2-core machine that can take a while. */
const READY_TIMEOUT_MS = 300_000;

/** Starts the server with `--jinja` (the model's own chat template, so tool calls come back as `tool_calls`), or for embeddings. */
export async function startLlamaServer(
  install: RealModelInstall,
  options: LlamaServerOptions = {},
): Promise<LlamaServer> {
  const port = await freePort();
  const serving = options.embeddings
    ? ["--embeddings", "--pooling", "mean", "--parallel", "1", "--ctx-size", String(EMBEDDING_TOKENS)]
    : ["--jinja", "--parallel", String(PARALLEL), "--ctx-size", String(PARALLEL * CONTEXT_PER_SEQUENCE)];
  const batch = options.embeddings
    ? ["--batch-size", String(EMBEDDING_TOKENS), "--ubatch-size", String(EMBEDDING_TOKENS)]
    : [];
  const args = [
    "--model",
    install.modelPath,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    ...serving,
    ...batch,
    "--threads",
    String(threads()),
    "--no-webui",
  ];
  let output = "";
  let stopping = false;
  const crashes: LlamaCrash[] = [];
  const launch = (): ChildProcess => {
    const child = spawn(install.serverPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    return child;
  };
  let child = launch();
  const baseURL = `http://127.0.0.1:${port}/v1`;
  const health = `http://127.0.0.1:${port}/health`;
  const server: LlamaServer = {
    baseURL,
    modelId: `qwen2.5-coder-${install.model.name}`,
    output: () => output,
    crashes,
    stop: () => {
      stopping = true;
      return stop(child);
    },
  };
  try {
    await waitUntilHealthy(health, child, () => output);
  } catch (error) {
    await stop(child);
    throw error;
  }
  if (options.restartOnCrash) {
    const supervise = (running: ChildProcess) =>
      running.once("exit", (code, signal) => {
        if (stopping) return;
        crashes.push({ at: new Date(), exit: signal ?? `code ${code}`, output });
        console.error(
          `llama-server exited (${signal ?? `code ${code}`}) while in use; restarting it. Its last output:\n${output.split("\n").slice(-15).join("\n")}`,
        );
        output = "";
        child = launch();
        supervise(child);
        waitUntilHealthy(health, child, () => output).catch((error: Error) =>
          console.error(`llama-server did not come back: ${error.message}`),
        );
      });
    supervise(child);
  }
  return server;
}

async function waitUntilHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited: number | null | undefined;
  child.once("exit", (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`llama-server exited (code ${exited}) before it was ready:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`llama-server was not ready after ${READY_TIMEOUT_MS / 1000} s:\n${output()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free port")),
      );
    });
  });
}
