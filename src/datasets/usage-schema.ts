/**
 * The zod schema of a run's usage, as the recorded case (`docs/recorded-case.schema.json`) and
 * the eval report (`docs/eval-report.schema.json`) both carry it.
 */
import { z } from "zod";

const count = z.number().int().min(0);

const tokens = {
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cachedInputTokens: count.optional(),
  cacheWriteTokens: count.optional().describe("Input tokens written to the provider's prompt cache"),
  reasoningTokens: count.optional(),
  costUsd: z.number().min(0).optional().describe("With pricing on the model"),
};
/** Tokens used by a run, failed attempts included. */
export const usageSchema = z
  .object({
    ...tokens,
    modelCalls: count.describe("Model calls that reported usage"),
    failedAttempts: z
      .object({ ...tokens, attempts: count })
      .optional()
      .describe("The part spent on model call attempts that failed"),
  })
  .describe("Tokens used, failed attempts included; absent when the server reported none");
