import { defined } from "./defined.js";
/**
 * Token usage and budgets as plain data: what each model call reported, the run's total, and
 * whether the run's budget lets another trip start. Pure functions; workflow-safe. A parent run
 * can sum its children's `RunUsage` with `addRunUsage` and bound them with the same `Budget`.
 */

/** Tokens one model call used, as its answer reported them (OpenAI's `usage`, camel-cased). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens served from the provider's prompt cache, when the server reports them. */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic's cache writes), when the server reports them. Part of `inputTokens`. */
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning, when the server reports them. */
  reasoningTokens?: number;
  /** What the call cost, when the model has `pricing`. */
  costUsd?: number;
}

/**
 * A run's usage: every token paid for, the answers' and the failed attempts' together;
 * `failedAttempts` is the part spent on model call attempts that failed after the server
 * reported usage (a stream cut off after its usage chunk, an answer the worker rejected).
 */
export interface RunUsage extends Usage {
  /** Model calls that reported usage (answers and failed attempts). */
  modelCalls: number;
  failedAttempts?: Usage & { attempts: number };
}

/** Limits on what a run may spend: a trip does not start once one is used up. */
export interface Budget {
  /** Total tokens (input + output, failed attempts included). */
  maxTokens?: number;
  /** Total cost in US dollars; needs `pricing` on the model. */
  maxCostUsd?: number;
}

/** Prices of a model, in US dollars per million tokens. */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Price of cached input tokens; default `inputPerMillion`. */
  cachedInputPerMillion?: number;
  /** Price of input tokens written to the prompt cache (`cacheWriteTokens`); default `inputPerMillion`. */
  cacheWritePerMillion?: number;
}

const OPTIONAL = ["cachedInputTokens", "cacheWriteTokens", "reasoningTokens", "costUsd"] as const;

/** The sum of two usages; an optional field is present when either has it. */
export function sumUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  for (const key of OPTIONAL)
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = roundCost((a[key] ?? 0) + (b[key] ?? 0), key);
  return sum;
}

/** Adds one model call's usage to a run's total (undefined: nothing reported yet). */
export function addUsage(total: RunUsage | undefined, usage: Usage, failedAttempt = false): RunUsage {
  const base: RunUsage = total ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0 };
  const { modelCalls, failedAttempts, ...tokens } = base;
  const next: RunUsage = { ...sumUsage(tokens, usage), modelCalls: modelCalls + 1 };
  if (failedAttempt) {
    const { attempts, ...failed } = failedAttempts ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, attempts: 0 };
    next.failedAttempts = { ...sumUsage(failed, usage), attempts: attempts + 1 };
  } else if (failedAttempts) next.failedAttempts = failedAttempts;
  return next;
}

/** The sum of two runs' usages (a parent and its children). */
export function addRunUsage(a: RunUsage | undefined, b: RunUsage | undefined): RunUsage | undefined {
  if (!a || !b) return a ?? b;
  const { modelCalls: ma, failedAttempts: fa, ...ta } = a;
  const { modelCalls: mb, failedAttempts: fb, ...tb } = b;
  const next: RunUsage = { ...sumUsage(ta, tb), modelCalls: ma + mb };
  if (fa || fb) {
    const zero = { inputTokens: 0, outputTokens: 0, totalTokens: 0, attempts: 0 };
    const { attempts: aa, ...ua } = fa ?? zero;
    const { attempts: ab, ...ub } = fb ?? zero;
    next.failedAttempts = { ...sumUsage(ua, ub), attempts: aa + ab };
  }
  return next;
}

/** What a call cost under `pricing`; cached input tokens and cache writes at their own prices when given. */
export function costOf(usage: Usage, pricing: ModelPricing): number {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const cost =
    ((usage.inputTokens - cached - written) * pricing.inputPerMillion +
      cached * (pricing.cachedInputPerMillion ?? pricing.inputPerMillion) +
      written * (pricing.cacheWritePerMillion ?? pricing.inputPerMillion) +
      usage.outputTokens * pricing.outputPerMillion) /
    1e6;
  return roundCost(cost, "costUsd");
}

/** Costs are kept to a billionth of a dollar, so sums do not drift with floating point. */
function roundCost(value: number, key: string): number {
  return key === "costUsd" ? Math.round(value * 1e9) / 1e9 : value;
}

/** What of the budget is used up, in words (e.g. "1200 of 1000 tokens"), or undefined when another trip may start. */
export function budgetUsedUp(budget: Budget | undefined, usage: RunUsage | undefined): string | undefined {
  if (!budget) return undefined;
  const used: string[] = [];
  if (budget.maxTokens !== undefined && (usage?.totalTokens ?? 0) >= budget.maxTokens)
    used.push(`${usage?.totalTokens ?? 0} of ${budget.maxTokens} tokens`);
  if (budget.maxCostUsd !== undefined && (usage?.costUsd ?? 0) >= budget.maxCostUsd)
    used.push(`$${usage?.costUsd ?? 0} of $${budget.maxCostUsd}`);
  return used.length ? used.join(" and ") : undefined;
}

/** A run's budget: the run's own fields over the agent's. */
export function mergeBudget(agent: Budget | undefined, run: Budget | undefined): Budget | undefined {
  if (!agent && !run) return undefined;
  return { ...agent, ...run };
}

/** The tighter of two budgets, field by field (a sub-agent's own budget and what its parent has left). */
export function tighterBudget(a: Budget | undefined, b: Budget | undefined): Budget | undefined {
  if (!a || !b) return a ?? b;
  const min = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  const tokens = min(a.maxTokens, b.maxTokens);
  const cost = min(a.maxCostUsd, b.maxCostUsd);
  return { ...defined({ maxTokens: tokens, maxCostUsd: cost }) };
}

/** What is left of a budget after `usage` (never below zero): the budget a sub-agent run gets. */
export function remainingBudget(budget: Budget | undefined, usage: RunUsage | undefined): Budget | undefined {
  if (!budget) return undefined;
  return {
    ...(budget.maxTokens !== undefined ? { maxTokens: Math.max(0, budget.maxTokens - (usage?.totalTokens ?? 0)) } : {}),
    ...(budget.maxCostUsd !== undefined
      ? { maxCostUsd: roundCost(Math.max(0, budget.maxCostUsd - (usage?.costUsd ?? 0)), "costUsd") }
      : {}),
  };
}

/** Usage in the shape OpenAI's Chat Completions answers report it, for `usageFromOpenAI`. */
export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Our `Usage` from an answer's `usage`, or undefined when the server reported none. */
export function usageFromOpenAI(usage: OpenAIUsage | null | undefined, pricing?: ModelPricing): Usage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  if (input === undefined && output === undefined) return undefined;
  const result: Usage = {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    totalTokens: count(usage.total_tokens) ?? (input ?? 0) + (output ?? 0),
  };
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  if (pricing) result.costUsd = costOf(result, pricing);
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
