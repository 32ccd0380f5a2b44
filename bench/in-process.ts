/**
 * The floor: the same agent's trip loop driven in-process, with no Temporal at all. It calls the
 * same pure functions the workflow calls (run-state's `recordAnswer`/`recordToolCalls`, decide's
 * contract decisions), the same `openai` client the model activity uses (streamed, as there),
 * and executes the tool directly with the same validation. Backstops and custom hints are left
 * out: the benchmark's agent has none.
 */
import { z } from "zod";
import type { Agent } from "../src/index.js";
import { contractSpecOf, matchesIntent } from "../src/agent/contract-options.js";
import { initialContractState } from "../src/core/contract-state.js";
import {
  actWhenAskedCandidate,
  decideReprompt,
  refusalCandidate,
  spendBudget,
  updatePendingRefusals,
} from "../src/contract/decide.js";
import { defaultActHint, defaultRefusalHint } from "../src/contract/hints.js";
import { finish, initialState, recordAnswer, recordToolCalls } from "../src/core/run-state.js";
import { refusalReasonOf } from "../src/core/tool-result.js";
import type { RequestedToolCall, RunResult, ToolCallRecord } from "../src/core/types.js";
import { openaiClientFor, toChatMessages, toChatTools } from "../src/models/openai-client.js";
import type { ModelReference } from "../src/models/openai-model.js";

/** Runs `agent` on `input` in this process and returns the same result shape as a durable run. */
export async function runInProcess(agent: Agent, input: string): Promise<RunResult> {
  const { options } = agent;
  const spec = contractSpecOf(options);
  const run = initialState([{ role: "user", content: input }]);
  const contract = initialContractState();
  contract.actionRequest = options.actWhenAsked?.intents.some((intent) => matchesIntent(intent, input)) ?? false;
  const client = openaiClientFor(options.model as ModelReference);
  const tools = toChatTools(agent.tools);
  const ids = { workflowId: "in-process", runId: "in-process" };
  while (run.trips < agent.maxTrips) {
    const stream = client.chat.completions.stream({
      model: options.model.modelId,
      messages: toChatMessages(
        typeof options.instructions === "string" ? options.instructions : undefined,
        run.messages,
      ),
      ...(tools.length ? { tools } : {}),
    });
    const choice = (await stream.finalChatCompletion()).choices[0];
    if (!choice) throw new Error("the model returned no choices");
    const toolCalls: RequestedToolCall[] = (choice.message.tool_calls ?? []).flatMap((call) =>
      call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
    recordAnswer(run, {
      role: "assistant",
      content: choice.message.content ?? null,
      ...(toolCalls.length ? { toolCalls } : {}),
    });
    if (toolCalls.length > 0) {
      const trip = run.trips;
      const records = await Promise.all(toolCalls.map((call) => executeTool(agent, call, trip)));
      recordToolCalls(run, records);
      contract.pendingRefusals = updatePendingRefusals(contract.pendingRefusals, records);
      continue;
    }
    const refusal = refusalCandidate(spec, contract);
    const act = actWhenAskedCandidate(spec, contract, run.toolCalls);
    const decision = decideReprompt(
      {
        backstopPrompts: [],
        ...(refusal ? { refusal: { tool: refusal.tool, text: defaultRefusalHint(refusal.tool, refusal.reason) } } : {}),
        ...(act && spec.actWhenAsked
          ? { actWhenAsked: { text: defaultActHint(spec.actWhenAsked.requiredTools, spec.actWhenAsked.require) } }
          : {}),
      },
      agent.maxTrips - run.trips,
    );
    if (decision.type === "end")
      return finish(run, "answered", `the model answered without tool calls on trip ${run.trips}`, ids);
    spendBudget(contract, decision.kind);
    run.messages.push({ role: "user", content: decision.text });
  }
  return finish(run, "max-trips", `maxTrips (${agent.maxTrips}) used up`, ids);
}

/** Parses, validates and executes one tool call, as the tool activity does, without the activity. */
async function executeTool(agent: Agent, call: RequestedToolCall, trip: number): Promise<ToolCallRecord> {
  const base = { id: call.id, name: call.name, trip };
  const tool = agent.tool(call.name);
  if (!tool) return { ...base, input: call.arguments, status: "refused", reason: `Unknown tool "${call.name}".` };
  let raw: unknown;
  try {
    raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return {
      ...base,
      input: call.arguments,
      status: "refused",
      reason: `Arguments are not valid JSON (${(error as Error).message}).`,
    };
  }
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) return { ...base, input: raw, status: "refused", reason: z.prettifyError(parsed.error) };
  try {
    const key = `in-process/trip-${trip}/${call.id}`;
    const output: unknown = JSON.parse(
      JSON.stringify(
        (await tool.execute(parsed.data, {
          workflowId: "in-process",
          runId: "in-process",
          context: undefined,
          toolCallId: call.id,
          trip,
          attempt: 1,
          idempotencyKey: key,
          signal: new AbortController().signal,
          heartbeat: () => {},
        })) ?? null,
      ),
    );
    const reason = refusalReasonOf(output);
    return reason === undefined
      ? { ...base, input: raw, output, status: "ok" }
      : { ...base, input: raw, output, status: "refused", reason };
  } catch (error) {
    return { ...base, input: raw, status: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}
