/** Worker-side: the contract options of an agent, with defaults, and their plain-data view. */
import type { ContractSpec } from "../core/contract-state.js";
import type { AgentOptions, Intent, OnToolRefusal } from "./options.js";

/** `onToolRefusal` with defaults applied, or undefined when it is off. */
export function refusalOptions(option: OnToolRefusal | undefined): Exclude<OnToolRefusal, string> | undefined {
  if (option === undefined || option === "off") return undefined;
  if (option === "retry-once-with-hint") return { retries: 1 };
  return { ...option, retries: option.retries ?? 1 };
}

/** The plain-data view of an agent's contract options that the workflow decides on. */
export function contractSpecOf(options: AgentOptions): ContractSpec {
  const act = options.actWhenAsked;
  const refusal = refusalOptions(options.onToolRefusal);
  return {
    ...(act
      ? {
          actWhenAsked: {
            requiredTools: act.requiredTools,
            require: act.require ?? "any",
            maxReprompts: act.maxReprompts ?? 1,
          },
        }
      : {}),
    ...(refusal ? { refusal: { retries: refusal.retries ?? 1 } } : {}),
    backstops: (options.backstops ?? []).map((b) => ({ name: b.name, phase: b.phase ?? "after" })),
    output: {
      retries: options.onInvalidOutput?.retries ?? 1,
      onFailure: options.onInvalidOutput?.onFailure ?? "error",
    },
  };
}

/** Whether the input matches an intent: a case-insensitive substring, a RegExp, or a predicate. */
export function matchesIntent(intent: Intent, input: string): boolean {
  if (typeof intent === "string") return input.toLowerCase().includes(intent.toLowerCase());
  if (intent instanceof RegExp) {
    intent.lastIndex = 0;
    return intent.test(input);
  }
  return intent(input) === true;
}
