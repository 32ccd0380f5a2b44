/**
 * The contract's steps inside the workflow: evaluate user callbacks (local activity), run
 * backstops (activities, at most once per run), and decide the one re-prompt with `decide`.
 */
import { ActivityFailure, log, workflowInfo } from "@temporalio/workflow";
import type { CallbackError, OutputCheck } from "../core/activity-types.js";
import type { BackstopTurn } from "../core/backstop-turn.js";
import { ACTIVITY } from "../core/constants.js";
import type { AgentSpec } from "../core/agent-spec.js";
import type { ContractState } from "../core/contract-state.js";
import type { PlaybackRecording } from "../core/playback.js";
import {
  actWhenAskedCandidate,
  backstopsToDetect,
  decideReprompt,
  outputRepairCandidate,
  refusalCandidate,
  spendBudget,
  type Decision,
  type RepromptOffers,
} from "../contract/decide.js";
import { lastReply, type RunState } from "../core/run-state.js";
import { budgetUsedUp, type Budget } from "../core/usage.js";
import type { ActivityProxies } from "./activity-proxies.js";
import { local } from "./activity-proxies.js";
import { defined } from "../core/defined.js";
import type { RunProgress } from "./run-progress.js";

/** Everything the contract steps work on. */
export interface ContractContext {
  spec: AgentSpec;
  run: RunState;
  contract: ContractState;
  tools: ActivityProxies;
  /** The user's request: the last user message of the run's input. */
  input: string;
  /** The request's budget: with it used up, no re-prompt is sent. */
  budget?: Budget;
  /** The last answer checked against the output schema (with one, for an answer without tool calls). */
  outputCheck?: OutputCheck;
  /** The run's context, for the user's callbacks (absent when the run has none). */
  context?: unknown;
  /** In a playback (recorded tools): the recording that tool calls and backstops are answered from. */
  playback?: PlaybackRecording;
  /** The run's progress, told when a backstop runs (for DurableAgentBackstopRan); set by the trip loop. */
  progress?: Pick<RunProgress, "backstopRan">;
}

function turn(ctx: ContractContext, phase: "before" | "after"): BackstopTurn {
  return {
    phase,
    runId: workflowInfo().runId,
    input: ctx.input,
    ...(phase === "after" ? { reply: lastReply(ctx.run) } : {}),
    tripIndex: phase === "after" ? ctx.run.trips - 1 : 0,
    toolCalls: ctx.run.toolCalls,
    messages: ctx.run.messages,
    ...defined({ context: ctx.context }),
  };
}

/** Before the first model call: decide whether the run is an action request, and run before-phase backstops (not for a fork: its first trip is past). */
export async function beforeFirstTrip(
  ctx: ContractContext,
  options: { backstops: boolean } = { backstops: true },
): Promise<void> {
  const detect = options.backstops ? backstopsToDetect(ctx.spec.contract, ctx.contract, "before") : [];
  const intents = ctx.spec.contract.actWhenAsked !== undefined;
  if (!intents && detect.length === 0) return;
  const current = turn(ctx, "before");
  const evaluation = await local[ACTIVITY.contractEvaluate]({ agent: ctx.spec.name, turn: current, intents, detect });
  recordCallbackErrors(ctx, evaluation.errors, "before");
  ctx.contract.actionRequest = evaluation.actionRequest === true;
  const prompts = await runBackstops(ctx, evaluation.detected, current);
  if (prompts.length > 0) ctx.run.messages.push({ role: "user", content: prompts.map((p) => p.prompt).join("\n\n") });
}

/** After an answer that would end the run: the re-prompt to send, if any, by precedence. */
export async function judgeAnswer(ctx: ContractContext): Promise<Decision> {
  const { spec, contract, run } = ctx;
  const detect = backstopsToDetect(spec.contract, contract, "after");
  const refusal = refusalCandidate(spec.contract, contract);
  const act = actWhenAskedCandidate(spec.contract, contract, run.toolCalls);
  const repair = outputRepairCandidate(spec.contract, contract, ctx.outputCheck)
    ? (ctx.outputCheck as { issues: string }).issues
    : undefined;
  if (detect.length === 0 && !refusal && !act && repair === undefined) return { type: "end" };
  const current = turn(ctx, "after");
  const evaluation = await local[ACTIVITY.contractEvaluate]({
    agent: spec.name,
    turn: current,
    detect,
    refusal,
    actWhenAsked: act,
    ...(repair !== undefined ? { outputRepair: { issues: repair } } : {}),
  });
  recordCallbackErrors(ctx, evaluation.errors, "after");
  const offers: RepromptOffers = {
    backstopPrompts: await runBackstops(ctx, evaluation.detected, current),
    ...(refusal && evaluation.refusalHint !== undefined
      ? { refusal: { tool: refusal.tool, text: evaluation.refusalHint } }
      : {}),
    ...(repair !== undefined && evaluation.outputHint !== undefined
      ? { outputRepair: { text: evaluation.outputHint } }
      : {}),
    ...(act && evaluation.actHint !== undefined ? { actWhenAsked: { text: evaluation.actHint } } : {}),
  };
  const usedUp = budgetUsedUp(ctx.budget, run.requestUsage);
  const decision = decideReprompt(offers, usedUp ? 0 : spec.maxTrips - run.trips);
  if (decision.type === "reprompt") {
    spendBudget(contract, decision.kind);
    run.messages.push({ role: "user", content: decision.text });
    run.trace.push({
      trip: run.trips,
      type: "reprompt",
      kind: decision.kind,
      text: decision.text,
      ...(decision.source ? { source: decision.source } : {}),
    });
    log.info("re-prompt sent", { kind: decision.kind, trip: run.trips, source: decision.source });
  } else if (decision.withheld) {
    const detail = usedUp ? `budget used up: ${usedUp}` : `no trips left (maxTrips ${spec.maxTrips})`;
    run.trace.push({ trip: run.trips, type: "reprompt.withheld", kind: decision.withheld, detail });
    log.info(`re-prompt withheld: ${detail}`, { kind: decision.withheld, trip: run.trips });
  }
  return decision;
}

/** Runs detected backstops in declaration order, each at most once per run; returns their prompts. */
async function runBackstops(
  ctx: ContractContext,
  names: string[],
  current: BackstopTurn,
): Promise<Array<{ name: string; prompt: string }>> {
  const prompts: Array<{ name: string; prompt: string }> = [];
  for (const name of names) {
    if (ctx.contract.backstopsRan.includes(name)) continue;
    ctx.contract.backstopsRan.push(name);
    const trace = (outcome: "detected" | "ran" | "prompted" | "error", detail?: string) => {
      ctx.run.trace.push({
        trip: ctx.run.trips,
        type: "backstop",
        name,
        phase: current.phase,
        outcome,
        ...defined({ detail }),
      });
      log.info(`backstop ${outcome}`, { backstop: name, phase: current.phase, trip: ctx.run.trips, detail });
    };
    trace("detected");
    if (ctx.playback) {
      const prompt = replayedBackstop(ctx, name, current.phase);
      if (prompt !== undefined) prompts.push({ name, prompt });
      continue;
    }
    ctx.progress?.backstopRan();
    let result;
    try {
      const { messages, toolCalls, context, ...turnData } = current; // the activity reads these from the run
      result = await ctx.tools[ACTIVITY.backstopRun].executeWithOptions({ summary: `backstop ${name}` }, [
        {
          agent: ctx.spec.name,
          name,
          turn: turnData,
          counts: { messages: messages.length, toolCalls: toolCalls.length },
          state: ctx.contract.backstopState,
          ...(context !== undefined ? { hasContext: true } : {}),
        },
      ]);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      trace("error", error.cause?.message ?? error.message);
      continue;
    }
    ctx.contract.backstopState = result.state;
    if (result.error !== undefined) trace("error", result.error);
    else if (result.prompt) {
      trace("prompted", result.prompt);
      prompts.push({ name, prompt: result.prompt });
    } else trace("ran");
  }
  return prompts;
}

/** In a playback a backstop's `run` is not called: its recorded prompt is used if it ran in the recording, else it is skipped. */
function replayedBackstop(ctx: ContractContext, name: string, phase: "before" | "after"): string | undefined {
  const recorded = ctx.playback!.backstop(name);
  if (recorded !== undefined) ctx.progress?.backstopRan(); // its recorded prompt stands in for its run
  const outcome = recorded === undefined ? "skipped" : recorded.prompt ? "prompted" : "ran";
  const detail =
    recorded === undefined
      ? "playback: not run (it did not run in the recording)"
      : (recorded.prompt ?? "playback: not run (it ran without a prompt in the recording)");
  ctx.run.trace.push({ trip: ctx.run.trips, type: "backstop", name, phase, outcome, detail, replayed: true });
  log.info(`backstop replayed: ${outcome}`, { backstop: name, phase, trip: ctx.run.trips });
  return recorded?.prompt || undefined;
}

function recordCallbackErrors(ctx: ContractContext, errors: CallbackError[], phase: "before" | "after"): void {
  for (const { source, error, backstop } of errors) {
    if (backstop)
      ctx.run.trace.push({
        trip: ctx.run.trips,
        type: "backstop",
        name: backstop,
        phase,
        outcome: "error",
        detail: `detect threw: ${error}`,
      });
    else ctx.run.trace.push({ trip: ctx.run.trips, type: "callback.error", source, error });
    log.warn("contract callback threw; ignored, the run goes on", { source, error });
  }
}
