import { log } from "@temporalio/activity";
import { matchesIntent, refusalOptions } from "../agent/contract-options.js";
import type { ContractEvaluateInput, ContractEvaluateOutput } from "../core/activity-types.js";
import { defaultActHint, defaultOutputHint, defaultRefusalHint } from "../contract/hints.js";
import { lookupAgent, type AgentRegistry } from "./registry.js";

/**
 * The `contract.evaluate` local activity: runs the contract's deciding callbacks (`intents`,
 * `detect`, `hint`) on the worker, so the workflow records their answers and replay never calls them.
 */
export function createContractEvaluate(registry: AgentRegistry) {
  return async function contractEvaluate(input: ContractEvaluateInput): Promise<ContractEvaluateOutput> {
    const options = lookupAgent(registry, input.agent).options;
    const errors: ContractEvaluateOutput["errors"] = [];
    const attempt = async <T>(source: string, fn: () => T | Promise<T>, fallback: T, backstop?: string): Promise<T> => {
      try {
        return await fn();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log.warn("contract callback threw; ignored, the run goes on", { source, error: message });
        errors.push({ source, error: message, ...(backstop ? { backstop } : {}) });
        return fallback;
      }
    };
    const output: ContractEvaluateOutput = { detected: [], errors };
    const act = options.actWhenAsked;
    if (input.intents && act) {
      output.actionRequest = await attempt(
        "actWhenAsked.intents",
        () => act.intents.some((intent) => matchesIntent(intent, input.turn.input)),
        false,
      );
    }
    for (const name of input.detect) {
      const backstop = options.backstops?.find((b) => b.name === name);
      if (
        backstop &&
        (await attempt(`backstop ${name}: detect`, () => backstop.detect(structuredClone(input.turn)), false, name)) ===
          true
      )
        output.detected.push(name);
    }
    if (input.refusal) {
      const { tool, reason } = input.refusal;
      const hint = refusalOptions(options.onToolRefusal)?.hint;
      output.refusalHint = hint
        ? await attempt(
            "onToolRefusal.hint",
            () => hint({ tool, reason, context: input.turn.context }),
            defaultRefusalHint(tool, reason),
          )
        : defaultRefusalHint(tool, reason);
    }
    if (input.actWhenAsked && act) {
      const fallback = defaultActHint(act.requiredTools, act.require ?? "any");
      const hint = act.hint;
      output.actHint =
        typeof hint === "function"
          ? await attempt(
              "actWhenAsked.hint",
              () =>
                hint({
                  input: input.turn.input,
                  reply: input.turn.reply ?? "",
                  requiredTools: act.requiredTools,
                  tripIndex: input.turn.tripIndex,
                  context: input.turn.context,
                }),
              fallback,
            )
          : (hint ?? fallback);
    }
    if (input.outputRepair) {
      const { issues } = input.outputRepair;
      const fallback = defaultOutputHint(issues);
      const hint = options.onInvalidOutput?.hint;
      output.outputHint =
        typeof hint === "function"
          ? await attempt(
              "onInvalidOutput.hint",
              () => hint({ issues, text: input.turn.reply ?? "", context: input.turn.context }),
              fallback,
            )
          : hint !== undefined
            ? `${hint}\n\nValidation error: ${issues}`
            : fallback;
    }
    return output;
  };
}
