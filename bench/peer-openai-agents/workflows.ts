/**
 * The second peer: the benchmark's conversation through `@temporalio/openai-agents`, the OpenAI
 * Agents SDK's runner in a workflow (`TemporalOpenAIRunner`), the model through the plugin's
 * activity and the tool an activity (`activityAsTool`). Bundled on its own, with the plugin.
 */
import { Agent } from "@openai/agents-core";
import { activityAsTool, TemporalOpenAIRunner } from "@temporalio/openai-agents/workflow";
import { WorkflowStream } from "@temporalio/workflow-streams/workflow";
import type * as activities from "../peer/activities.js";
import type { PeerResult } from "../peer/workflows.js";

export async function openaiAgentsTrips(input: string, maxTurns: number): Promise<PeerResult> {
  const recordStep = activityAsTool<typeof activities.recordStep>(
    {
      name: "record_step", // the activity registered under the tool's name (the scripted model calls record_step)
      description: "Records one step of the plan.",
      parameters: {
        type: "object",
        properties: { step: { type: "integer" } },
        required: ["step"],
        additionalProperties: false,
      },
    },
    { startToCloseTimeout: "1 minute" },
  );
  const agent = new Agent({ name: "bench", instructions: "", model: "gpt-bench", tools: [recordStep] });
  const result = await new TemporalOpenAIRunner().run(agent, input, { maxTurns });
  const steps = result.rawResponses.length;
  const toolCalls = result.newItems.filter((item) => item.type === "tool_call_item").length;
  return { text: String(result.finalOutput ?? ""), steps, toolCalls };
}

/** The stream topic the peer's streaming model activity publishes its events on. */
export const OPENAI_AGENTS_STREAM_TOPIC = "tokens";

/** The same conversation with `run(agent, input, { stream: true })`: each model call publishes its stream events to the workflow's stream (the peer's streaming mode). */
export async function openaiAgentsStreamTrips(input: string, maxTurns: number): Promise<PeerResult> {
  new WorkflowStream(); // hosts the stream the model activity publishes to, and subscribers poll
  const recordStep = activityAsTool<typeof activities.recordStep>(
    {
      name: "record_step",
      description: "Records one step of the plan.",
      parameters: {
        type: "object",
        properties: { step: { type: "integer" } },
        required: ["step"],
        additionalProperties: false,
      },
    },
    { startToCloseTimeout: "1 minute" },
  );
  const agent = new Agent({ name: "bench", instructions: "", model: "gpt-bench", tools: [recordStep] });
  const result = await new TemporalOpenAIRunner({
    defaultModelParams: { startToCloseTimeout: "1 minute", streamingTopic: OPENAI_AGENTS_STREAM_TOPIC },
  }).run(agent, input, { maxTurns, stream: true });
  for await (const _event of result); // the run goes on as its events are consumed
  await result.completed;
  const toolCalls = result.newItems.filter((item) => item.type === "tool_call_item").length;
  return { text: String(result.finalOutput ?? ""), steps: result.rawResponses.length, toolCalls };
}
