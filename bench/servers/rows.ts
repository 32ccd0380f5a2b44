/**
 * What a protocol's rows of `npm run bench:servers` give (rows/mcp.ts, and the A2A rows beside
 * it): subjects timed against `agent.run()` round by round, and checks of their own.
 */
import type { Client } from "@temporalio/client";
import type { Agent } from "../../src/index.js";
import type { Goal } from "../stats/index.js";

/** What the runner gives every protocol's rows: the one-trip agent, served by a worker on `taskQueue`. */
export interface ServersBenchContext {
  client: Client;
  agent: Agent;
  taskQueue: string;
  quick: boolean;
}

/** One subject: a call of the agent through the protocol, timed by the runner (`round` numbers the message). */
export interface LatencySubject {
  label: string;
  call(round: number): Promise<void>;
}

/** A protocol's rows, started once: its subjects, its own checks (run after the rounds), and its close. */
export interface StartedRows {
  subjects: LatencySubject[];
  checks(): Promise<Goal[]>;
  close(): Promise<void>;
}

/** A protocol's rows: `start` serves the agent over the protocol on loopback and connects its clients. */
export interface ServerRows {
  protocol: string;
  start(context: ServersBenchContext): Promise<StartedRows>;
}
