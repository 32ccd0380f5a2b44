/**
 * `createWebhookHandler({ agent, verify, input, idempotencyKey })`: the fetch handler of a webhook
 * route (a Next.js App Router route exports `POST`; in Node, any fetch adapter serves it). One run
 * per event: the workflow id derives from the event's idempotency key, and Temporal refuses a
 * second workflow with that id, running or closed (within the namespace's retention), so a
 * redelivered event starts nothing new and gets the first run's id.
 *
 * Who may start a run: `verify(request)` is the guard, a signature check over the raw body (read
 * once; `verify` gets a copy of the request holding it). Webhooks come from servers, which send no
 * `Origin`; a request that carries one comes from a browser and is refused (403) unless
 * `allowedOrigins` lists it.
 */
import type { Client } from "@temporalio/client";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { asConnectionError } from "../client/temporal-reachable.js";
import { getDefaultClient, temporalSettings } from "../client/connection.js";
import { prepareRunStart, type RunOptions } from "../client/start-run.js";
import type { RunInput } from "../client/normalize-input.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { WORKFLOW_NAME } from "../core/constants.js";
import { defined } from "../core/defined.js";
import {
  ContextValidationError,
  DurableAgentError,
  InvalidInputError,
  PayloadTooLargeError,
  TemporalConnectionError,
} from "../errors.js";
import { WebhookOptionsError, WebhookRequestError } from "./errors.js";

/** Reads a parsed event (its JSON body) and the request it came in. */
export type WebhookReader<T> = (body: unknown, request: Request) => T | Promise<T>;

/** Options of `createWebhookHandler()`. */
export interface WebhookHandlerOptions<Context = unknown> {
  /** The agent each event runs: any `ai.agent()`. */
  agent: AgentDefinition;
  /**
   * The signature check: true when the request comes from the sender (`hmacSha256Verifier({ secret })`
   * for the `sha256=<hex>` header form). Called first, with a copy of the request holding the raw
   * body; false (or a throw) answers 401 and starts nothing.
   */
  verify: (request: Request) => boolean | Promise<boolean>;
  /** The run's input from the event, as `agent.start(input)` takes it. */
  input: WebhookReader<RunInput>;
  /** The event's id, the same on every delivery of it (e.g. GitHub's `X-GitHub-Delivery` header, Stripe's `event.id`). */
  idempotencyKey: WebhookReader<string>;
  /** The run's context from the event (checked with the agent's `contextSchema`). */
  context?: WebhookReader<Context>;
  /** The Temporal client, or a function giving it; default: one connected from the environment. */
  client?: Client | (() => Promise<Client>);
  /** The task queue the agent's worker polls. */
  taskQueue?: string;
  /** Run options every run gets: its `timeout`, `budget`, `modelSettings`. */
  run?: Pick<RunOptions<Context>, "timeout" | "budget" | "modelSettings">;
  /** Origins a browser may post from (default none: a request with an `Origin` header is refused with 403). */
  allowedOrigins?: string[];
  /** The largest body read, in bytes (default 1 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
  /** Where the details of a refused or failed request go (default `console`); the answer says only what the sender can act on. */
  logger?: WebhookLogger;
}

/** Where a webhook handler writes what it refused and why. */
export interface WebhookLogger {
  /** A refused request (its origin, signature, body or event), with the reason. */
  warn: (message: string) => void;
  /** A run that could not be started, with the error. */
  error: (message: string, error?: unknown) => void;
}

/** The fetch handler of a webhook route. */
export interface WebhookHandler {
  /** Starts the event's run (once per idempotency key) and answers 202 `{ workflowId }`. */
  POST: (request: Request) => Promise<Response>;
}

const MAX_KEY_LENGTH = 200;

/** `{ error: { name, message } }` with a status. */
function refuse(status: number, name: string, message: string): Response {
  return Response.json({ error: { name, message } }, { status });
}

/** The raw body, read once, or undefined when it is larger than `max` bytes. */
async function readBody(request: Request, max: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (Number(request.headers.get("content-length") ?? 0) > max) return undefined;
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Calls a reader of the event; its throw is the event's fault (a field it lacks): a 400, with the details logged. */
async function read<T>(what: string, reader: WebhookReader<T>, body: unknown, request: Request): Promise<T> {
  try {
    return await reader(body, request);
  } catch (error) {
    throw new WebhookRequestError(`the event's ${what} could not be read from it`, 400, { cause: error });
  }
}

function checkOptions(options: WebhookHandlerOptions<unknown>): void {
  if (typeof options !== "object" || options === null)
    throw new WebhookOptionsError("options", "give { agent, verify, input, idempotencyKey }");
  if (typeof options.agent?.name !== "string")
    throw new WebhookOptionsError("agent", "give the ai.agent() each event runs");
  for (const field of ["verify", "input", "idempotencyKey"] as const)
    if (typeof options[field] !== "function")
      throw new WebhookOptionsError(
        field,
        field === "verify"
          ? "give the signature check, e.g. hmacSha256Verifier({ secret })"
          : "give a function of the event's body and request",
      );
  if (options.context !== undefined && typeof options.context !== "function")
    throw new WebhookOptionsError("context", "give a function of the event's body and request");
  if (options.maxBodyBytes !== undefined && (!Number.isInteger(options.maxBodyBytes) || options.maxBodyBytes < 1))
    throw new WebhookOptionsError("maxBodyBytes", "must be a positive integer");
}

/** Creates the webhook route's handler; throws `WebhookOptionsError` for a missing or bad option. */
export function createWebhookHandler<Context = unknown>(options: WebhookHandlerOptions<Context>): WebhookHandler {
  checkOptions(options as WebhookHandlerOptions<unknown>);
  const { agent } = options;
  const logger = options.logger ?? console;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const clientOf = async (): Promise<Client> =>
    typeof options.client === "function" ? options.client() : (options.client ?? getDefaultClient());

  /** Starts the event's run, or finds the one an earlier delivery started; its workflow id. */
  async function startOnce(input: RunInput, key: string, context: unknown): Promise<string> {
    const start = prepareRunStart(agent, input, {
      ...options.run,
      ...defined({ context, taskQueue: options.taskQueue }),
      id: `webhook-${key}`,
    });
    const client = await clientOf();
    try {
      await client.workflow.start(WORKFLOW_NAME, {
        args: [start.args],
        taskQueue: start.taskQueue,
        workflowId: start.workflowId,
        staticSummary: start.staticSummary,
        // A closed run with this id blocks a new one too (until the namespace's retention drops it).
        workflowIdReusePolicy: "REJECT_DUPLICATE",
      });
    } catch (error) {
      const sdk = await loadTemporalClient();
      if (!(error instanceof sdk.WorkflowExecutionAlreadyStartedError)) throw error;
    }
    return start.workflowId;
  }

  async function post(request: Request): Promise<Response> {
    const origin = request.headers.get("origin");
    if (origin !== null && !allowedOrigins.has(origin)) {
      logger.warn(`durable-agent webhook: refused a request from Origin ${origin} (not in allowedOrigins)`);
      return refuse(403, "Forbidden", "Webhooks are server-to-server: a request from a browser's origin is refused.");
    }
    const raw = await readBody(request, maxBodyBytes);
    if (!raw) return refuse(413, "PayloadTooLarge", `The body is larger than ${maxBodyBytes} bytes.`);
    const copy = new Request(request.url, { method: request.method, headers: request.headers, body: raw });
    let verified = false;
    try {
      verified = (await options.verify(copy)) === true;
    } catch (error) {
      logger.warn(
        `durable-agent webhook: verify threw, so the request is refused: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    if (!verified) return refuse(401, "Unauthorized", "The request's signature does not verify.");
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
    } catch {
      throw new WebhookRequestError("the body is not JSON");
    }
    const key = await read("idempotency key", options.idempotencyKey, body, request);
    if (typeof key !== "string" || key.trim() === "" || key.length > MAX_KEY_LENGTH || /\p{Cc}/u.test(key))
      throw new WebhookRequestError(
        `the event's idempotency key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters without control characters`,
      );
    const input = await read("input", options.input, body, request);
    const context = options.context ? await read("context", options.context, body, request) : undefined;
    const workflowId = await startOnce(input, key, context);
    return Response.json({ workflowId }, { status: 202 });
  }

  return {
    POST: async (request) => {
      try {
        return await post(request);
      } catch (caught) {
        const error = asConnectionError(caught, temporalSettings().address);
        if (WebhookRequestError.isInstance(error)) {
          logger.warn(
            `durable-agent webhook: ${error.message}${error.cause ? ` (${(error.cause as Error)?.message ?? String(error.cause)})` : ""}`,
          );
          return refuse(error.status, error.name, error.message);
        }
        if (
          InvalidInputError.isInstance(error) ||
          ContextValidationError.isInstance(error) ||
          PayloadTooLargeError.isInstance(error)
        ) {
          logger.warn(`durable-agent webhook: ${error.name}: ${error.message}`);
          return refuse(400, error.name, error.message);
        }
        logger.error("durable-agent webhook: the run could not be started", error);
        if (TemporalConnectionError.isInstance(error))
          return refuse(503, error.name, "The agent's server is unreachable; deliver the event again later.");
        const name = DurableAgentError.isInstance(error) ? error.name : "Error";
        return refuse(500, name, "The run could not be started; the server's log says why.");
      }
    },
  };
}
