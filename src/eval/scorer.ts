import type { EvalCase } from "../datasets/eval-case.js";
import type { EvalRecord, ObservedToolCall } from "./eval-record.js";
import { ScorerResultError } from "./errors.js";
import { defined } from "../core/defined.js";

/** Why a row came out as it did, for a reader of the report. Add fields of your own freely. */
export interface ScoreEvidence {
  /** The sentence that claims a change. */
  claim?: string;
  /** The claim pattern that matched it. */
  claimPattern?: string;
  /** The intent the input matched (its source text). */
  intent?: string;
  /** Required tools without a successful call. */
  missingTools?: string[];
  /** The run's tool calls with their statuses. Filled in on every failed row. */
  toolCalls?: ObservedToolCall[];
  [key: string]: unknown;
}

/** A scorer's verdict on one record. */
export interface ScoreVerdict {
  pass: boolean;
  /** Why it failed (or passed). The built-in scorers fail with the specification's exact messages. */
  reason?: string;
  /** A number of yours (0..1 by convention), kept in the report. */
  score?: number;
  evidence?: ScoreEvidence;
}

/** The scorer does not apply to this record (for example: not an action request). Left out of pass rates. */
export interface NotApplicable {
  applicable: false;
  reason?: string;
  evidence?: ScoreEvidence;
}

/** What a scorer returns. */
export type ScorerResult = ScoreVerdict | NotApplicable;

/** A scorer as a function; its `name` (the function's name) names it in the report. */
export type ScorerFunction<C extends EvalCase = EvalCase> = (
  record: EvalRecord<C>,
) => ScorerResult | Promise<ScorerResult>;

/** A scorer: a named function, or `{ name, score }`. A scorer that throws is reported as an error, apart from failures. */
export type Scorer<C extends EvalCase = EvalCase> = ScorerFunction<C> | { name: string; score: ScorerFunction<C> };

/** Names a scorer function: `defineScorer("polite", (record) => ({ pass: !/\bno\b/i.test(record.reply) }))`. */
export function defineScorer<C extends EvalCase = EvalCase>(name: string, score: ScorerFunction<C>): ScorerFunction<C> {
  return Object.defineProperty((record: EvalRecord<C>) => score(record), "name", { value: name });
}

/** `{ applicable: false, reason }`: the result for a record the scorer does not judge. */
export function notApplicable(reason?: string, evidence?: ScoreEvidence): NotApplicable {
  return { applicable: false, ...defined({ reason, evidence }) };
}

/** The scorer's name ("" when it has none). */
export function scorerName(scorer: Scorer<never>): string {
  return typeof scorer === "function" ? scorer.name : scorer.name;
}

/** What one scorer made of one record. */
export type ScoredOutcome =
  | { status: "pass" | "fail"; reason?: string; score?: number; evidence?: ScoreEvidence }
  | { status: "not-applicable"; reason?: string; evidence?: ScoreEvidence }
  | { status: "error"; error: { name: string; message: string } };

/** Runs one scorer on a record; a throw or a malformed result becomes an `error` outcome. */
export async function runScorer<C extends EvalCase>(scorer: Scorer<C>, record: EvalRecord<C>): Promise<ScoredOutcome> {
  const name = scorerName(scorer as Scorer<never>);
  try {
    const result: unknown = await (typeof scorer === "function" ? scorer(record) : scorer.score(record));
    return outcomeOf(name, result);
  } catch (error) {
    return { status: "error", error: errorInfo(error) };
  }
}

function outcomeOf(scorer: string, result: unknown): ScoredOutcome {
  if (typeof result !== "object" || result === null)
    throw new ScorerResultError(scorer, result === null ? "null" : typeof result);
  const r = result as Partial<ScoreVerdict & NotApplicable>;
  const extras = {
    ...(typeof r.reason === "string" ? { reason: r.reason } : {}),
    ...(typeof r.evidence === "object" && r.evidence !== null ? { evidence: r.evidence } : {}),
  };
  if (r.applicable === false) return { status: "not-applicable", ...extras };
  if (typeof r.pass !== "boolean")
    throw new ScorerResultError(
      scorer,
      `an object without a boolean \`pass\` (${JSON.stringify(result).slice(0, 80)})`,
    );
  return {
    status: r.pass ? "pass" : "fail",
    ...extras,
    ...(typeof r.score === "number" && Number.isFinite(r.score) ? { score: r.score } : {}),
  };
}

/** `{ name, message }` of anything thrown. */
export function errorInfo(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}
