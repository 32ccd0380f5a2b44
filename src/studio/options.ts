/** The options of `ai.studio()` and what it resolves to. */
import type { Client } from "@temporalio/client";
import type { Agent } from "../facade/define-agent.js";
import type { Scorer } from "../eval/scorer.js";

/** Options of `ai.studio()` (and `durable-agent studio`). */
export interface StudioOptions {
  /** The Temporal client runs are read through; its data converter decrypts encrypted runs. Default: one connected from TEMPORAL_ADDRESS. */
  client?: Client;
  /** The agents module's agents: with them the studio can fork runs onto them and run evals. */
  agents?: readonly Agent[];
  /** The port (default 4000; 0 picks a free one). */
  port?: number;
  /** The host to bind (default 127.0.0.1). Any other host needs a `token`. */
  host?: string;
  /** With a token, every request must carry it (`Authorization: Bearer <token>`, or `?token=` once, which sets a cookie). */
  token?: string;
  /** Who approves and rejects from the page (recorded as `by`, and asked of the worker's `canDecide`). */
  as?: string;
  /** The task queue of the workers that serve `agents` (forks and evals run there). Default TEMPORAL_TASK_QUEUE, else durable-agent. */
  taskQueue?: string;
  /** The eval scorers. Default: `changeClaimedWithoutToolCall()`, and `requiredToolCalled` for an agent with `actWhenAsked`. */
  scorers?: readonly Scorer[];
  /** Where datasets and eval reports are written. Default `.durable-agent-studio` in the working directory. */
  dataDir?: string;
  /** The Temporal UI's base URL, for run links. Default http://localhost:8233 (the dev server's). */
  temporalUiBase?: string;
  /** The built page's folder. Default: the package's `dist/studio/page`. */
  assetsDir?: string;
}

/** A running studio. */
export interface StudioServer {
  /** The page's URL (with `?token=` when a token is set). */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops the server (evals in progress go on until they finish). */
  close(): Promise<void>;
}
