/** Acting on a run from the page: approve or reject a waiting call as the studio's `as`, cancel, fork. */
import { defined } from "../../core/defined.js";
import type { Client } from "@temporalio/client";
import type { Agent } from "../../facade/define-agent.js";
import { getRun } from "../../client/run-handle.js";
import {
  AgentOptionsError,
  ApprovalNotWaitingError,
  ApprovalRefusedError,
  ForkError,
  UnknownApprovalError,
} from "../../errors.js";
import { isAiSdkModel, resolveModel } from "../../models/agent-model.js";
import type { ModelSettings } from "../../core/model-settings.js";
import { forkRun } from "../../fork/fork-run.js";
import type { ApprovalRequest, ForkRequest, ForkResponse } from "../api-types.js";
import { StudioRequestError } from "./http-error.js";

/** Approves or rejects the call as `as` (the worker's `canDecide` gates it: a refusal is a 403). */
export async function decide(
  client: Client,
  workflowId: string,
  callId: string,
  body: ApprovalRequest,
  as: string | undefined,
): Promise<void> {
  if (body?.decision !== "approve" && body?.decision !== "reject")
    throw new StudioRequestError(400, '`decision` must be "approve" or "reject".');
  if (body.reason !== undefined && typeof body.reason !== "string")
    throw new StudioRequestError(400, "`reason` must be a string.");
  const handle = await getRun(workflowId, { client });
  try {
    if (body.decision === "approve") await handle.approve(callId, as !== undefined ? { by: as } : {});
    else
      await handle.reject(callId, {
        reason: body.reason?.trim() || `rejected${as ? ` by ${as}` : ""} in the studio`,
        ...defined({ by: as }),
      });
  } catch (error) {
    if (ApprovalRefusedError.isInstance(error)) throw new StudioRequestError(403, error.message);
    if (ApprovalNotWaitingError.isInstance(error)) throw new StudioRequestError(409, error.message);
    if (UnknownApprovalError.isInstance(error)) throw new StudioRequestError(404, error.message);
    throw error;
  }
}

/** Cancels the run. */
export async function cancel(client: Client, workflowId: string): Promise<void> {
  await (await getRun(workflowId, { client })).cancel();
}

/** Forks the run at `atTrip` onto an agent of the module, on the studio's task queue. */
export async function fork(
  client: Client,
  workflowId: string,
  body: ForkRequest,
  agents: ReadonlyMap<string, Agent>,
  taskQueue: string,
): Promise<ForkResponse> {
  if (agents.size === 0)
    throw new StudioRequestError(
      409,
      "Forking needs the agents module: start the studio with it (`durable-agent studio ./agents.ts`, or `ai.studio({ agents })`).",
    );
  if (typeof body !== "object" || body === null) throw new StudioRequestError(400, "The body must be a JSON object.");
  checkForkEdits(body);
  if (!agents.has(body?.agent))
    throw new StudioRequestError(
      400,
      `No agent ${JSON.stringify(body?.agent)} in the module (it has ${[...agents.keys()].join(", ")}).`,
    );
  const agent = agents.get(body.agent)!;
  const model = body.model?.trim() ? body.model.trim() : undefined;
  if (model !== undefined && isAiSdkModel(resolveModel(agent.options.model)))
    throw new StudioRequestError(
      400,
      `Agent ${agent.name}'s model is an AI SDK model, whose id cannot be changed here: fork onto an agent of the module that has the model you want.`,
    );
  const instructions = body.instructions?.trim() ? body.instructions : undefined;
  try {
    const handle = await forkRun(workflowId, {
      atTrip: body.atTrip,
      agent: body.agent,
      client,
      taskQueue,
      ...defined({ instructions, model, modelSettings: body.modelSettings as ModelSettings | undefined }),
    });
    return { workflowId: handle.workflowId };
  } catch (error) {
    if (ForkError.isInstance(error) || AgentOptionsError.isInstance(error))
      throw new StudioRequestError(400, error.message);
    throw error;
  }
}

/** Checks the edits of a fork's body: strings, and settings that are an object (their keys and values are checked when the fork starts). */
function checkForkEdits(body: ForkRequest): void {
  for (const key of ["instructions", "model"] as const)
    if (body[key] !== undefined && typeof body[key] !== "string")
      throw new StudioRequestError(400, `\`${key}\` must be a string.`);
  const settings = body.modelSettings;
  if (settings !== undefined && (typeof settings !== "object" || settings === null || Array.isArray(settings)))
    throw new StudioRequestError(400, '`modelSettings` must be an object, such as { "temperature": 0.2 }.');
}
