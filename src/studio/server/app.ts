/** The studio's HTTP app (Hono): the token check, the JSON API under /api/, and the page. */
import { defined } from "../../core/defined.js";
import type { Client } from "@temporalio/client";
import { Hono, type Context } from "hono";
import type { Agent } from "../../facade/define-agent.js";
import { getRun } from "../../client/run-handle.js";
import { isUnreachable } from "../../client/temporal-reachable.js";
import {
  DurableAgentError,
  InvalidInputError,
  InvalidStreamCursorError,
  TemporalConnectionError,
} from "../../errors.js";
import type { ErrorResponse, MetaResponse } from "../api-types.js";
import { cancel, decide, fork } from "./actions.js";
import { StudioChats } from "./chat.js";
import { listApprovals } from "./approvals-queue.js";
import { servePage } from "./assets.js";
import { studioAuth } from "./auth.js";
import { listDatasets, saveDataset } from "./datasets.js";
import type { EvalJobs } from "./evals.js";
import { StudioRequestError } from "./http-error.js";
import { sameOriginOnly, securityHeaders, temporalReachable } from "./request-checks.js";
import { RunInputs } from "./run-inputs.js";
import { listRuns } from "./runs-list.js";
import { readRunView } from "./run-view.js";
import { listScheduleRows } from "./schedules.js";

/** What the app serves from. */
export interface StudioContext {
  client: Client;
  agents: ReadonlyMap<string, Agent>;
  as?: string;
  token?: string;
  port: () => number;
  taskQueue: string;
  dataDir: string;
  temporalUiBase: string;
  assetsDir: string;
  evals: EvalJobs;
}

/** gRPC's status for a workflow (or run) the server does not have. */
const GRPC_NOT_FOUND = 5;
/** gRPC's status for a request the server will not take as it is (a run id that is not a UUID, say). */
const GRPC_INVALID_ARGUMENT = 3;

const codeOf = (error: Error) =>
  (error as { code?: number }).code ?? (error.cause as { code?: number } | undefined)?.code;

async function body<T>(c: Context): Promise<T> {
  try {
    return (await c.req.json()) as T;
  } catch {
    throw new StudioRequestError(400, "The request's body must be JSON.");
  }
}

function errorResponse(c: Context, error: Error) {
  if (StudioRequestError.isInstance(error)) return c.json<ErrorResponse>({ error: error.message }, error.status);
  const notFound = error.name === "WorkflowNotFoundError" || codeOf(error) === GRPC_NOT_FOUND;
  if (notFound) return c.json<ErrorResponse>({ error: `No such run: ${error.message}` }, 404);
  if (codeOf(error) === GRPC_INVALID_ARGUMENT)
    return c.json<ErrorResponse>({ error: `Temporal refused the request as malformed: ${grpcDetails(error)}` }, 400);
  if (InvalidStreamCursorError.isInstance(error) || InvalidInputError.isInstance(error))
    return c.json<ErrorResponse>({ error: error.message }, 400);
  // The log gets the details (the server's address, what to start); the page a sentence for a person.
  console.error(`durable-agent studio: ${c.req.method} ${c.req.path}:`, error);
  if (TemporalConnectionError.isInstance(error) || isUnreachable(error))
    return c.json<ErrorResponse>({ error: "The studio cannot reach Temporal. Try again in a moment." }, 503);
  if (DurableAgentError.isInstance(error))
    return c.json<ErrorResponse>({ error: `${error.name}: ${error.message}` }, 500);
  return c.json<ErrorResponse>({ error: "The studio could not do that; its log says why." }, 500);
}

/** What the server said of a request it refused: the cause's details (the SDK's own message is generic). */
function grpcDetails(error: Error): string {
  const cause = error.cause as { details?: string; message?: string } | undefined;
  return cause?.details ?? (error as { details?: string }).details ?? cause?.message ?? error.message;
}

/** The app for a studio. */
export function createStudioApp(ctx: StudioContext): Hono {
  const app = new Hono();
  const { client } = ctx;
  const inputs = new RunInputs(client);
  const chats = new StudioChats({ client, agents: ctx.agents, taskQueue: ctx.taskQueue, ...defined({ as: ctx.as }) });
  app.onError((error, c) => errorResponse(c, error));
  app.use("*", securityHeaders());
  app.use("*", sameOriginOnly());
  app.use("*", studioAuth(ctx.token, ctx.port));
  app.use("/api/*", temporalReachable(client));

  app.get("/api/meta", (c) =>
    c.json<MetaResponse>({
      agents: [...ctx.agents.values()].map((agent) => ({
        name: agent.name,
        ...defined({ version: agent.version }),
      })),
      ...defined({ as: ctx.as }),
      canFork: ctx.agents.size > 0,
      canEval: ctx.agents.size > 0,
      canChat: ctx.agents.size > 0,
      temporalUiBase: ctx.temporalUiBase,
    }),
  );
  app.get("/api/runs", async (c) => {
    const { page, visibilityMs } = await listRuns(client, inputs, c.req.query());
    c.header("Server-Timing", `visibility;dur=${visibilityMs.toFixed(1)}`);
    return c.json(page);
  });
  app.get("/api/approvals", async (c) => c.json(await listApprovals(client, inputs)));
  app.get("/api/runs/:workflowId", async (c) =>
    c.json(
      await readRunView(client, c.req.param("workflowId"), {
        ...(c.req.query("runId") ? { runId: c.req.query("runId") } : {}),
        temporalUiBase: ctx.temporalUiBase,
      }),
    ),
  );
  app.get("/api/runs/:workflowId/stream", async (c) => {
    const after = c.req.header("last-event-id") ?? c.req.query("after");
    const handle = await getRun(c.req.param("workflowId"), { client });
    return handle.stream(after ? { after } : {}).toSSEResponse();
  });
  app.post("/api/runs/:workflowId/approvals/:callId", async (c) => {
    await decide(client, c.req.param("workflowId"), c.req.param("callId"), await body(c), ctx.as);
    return c.json({ ok: true });
  });
  app.post("/api/runs/:workflowId/cancel", async (c) => {
    await cancel(client, c.req.param("workflowId"));
    return c.json({ ok: true });
  });
  app.post("/api/runs/:workflowId/fork", async (c) =>
    c.json(await fork(client, c.req.param("workflowId"), await body(c), ctx.agents, ctx.taskQueue)),
  );
  // The chat panel: the library's chat handler per agent (POST a message or a decision; GET and DELETE a chat's stream).
  const chat = async (c: Context, method: "GET" | "POST" | "DELETE") =>
    chats.handlerOf(c.req.param("agent") ?? "")[method](c.req.raw);
  app.post("/api/chat/:agent", (c) => chat(c, "POST"));
  app.get("/api/chat/:agent", (c) => chat(c, "GET"));
  app.get("/api/chat/:agent/:chatId/stream", (c) => chat(c, "GET"));
  app.delete("/api/chat/:agent/:chatId/stream", (c) => chat(c, "DELETE"));
  app.get("/api/schedules", async (c) => c.json(await listScheduleRows(client)));
  app.get("/api/datasets", async (c) => c.json({ datasets: await listDatasets(ctx.dataDir) }));
  app.post("/api/datasets", async (c) => c.json(await saveDataset(client, ctx.dataDir, await body(c))));
  app.get("/api/evals", (c) => c.json(ctx.evals.list()));
  app.post("/api/evals", async (c) => c.json({ id: await ctx.evals.start(await body(c)) }));
  app.get("/api/evals/:id", (c) => c.json(ctx.evals.progress(c.req.param("id"))));
  app.get("/api/reports/:id", async (c) => c.html(await ctx.evals.html(c.req.param("id"))));
  app.get("/api/compare", async (c) => c.json(await ctx.evals.compare(c.req.query("a"), c.req.query("b"))));
  app.all("/api/*", (c) => c.json<ErrorResponse>({ error: `No such API: ${c.req.method} ${c.req.path}` }, 404));

  servePage(app, ctx.assetsDir);
  return app;
}
