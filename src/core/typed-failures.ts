/**
 * Typed errors across the workflow boundary: one encoder, one decoder. `toFailure` turns an error
 * of this library into a Temporal `ApplicationFailure` whose `type` is the error's stable name and
 * whose first detail is its fields as plain data (the run's usage, when known, a later detail).
 * `fromFailure` turns it back into the error's class wherever it surfaces: a run's result, a
 * session message, an approval Update, a sub-agent's child workflow, a trace entry. Failures that
 * earlier versions recorded decode too: the type names never change. Workflow-safe: imports only
 * `@temporalio/common` and the error classes.
 */
import type { Duration } from "@temporalio/common";
// The failure module alone, not the package's index (which loads Nexus and more): the root imports this file.
import { ApplicationFailure } from "@temporalio/common/lib/failure.js";
import { defined } from "./defined.js";
import type { RunUsage } from "./usage.js";
import { ERROR_MARKER } from "./error-guard.js";
import * as errorClasses from "../errors.js";
import { DurableAgentError, type ErrorData } from "../errors.js";

/** Fields whose name on the wire differs from the class's, by error type: the wire keeps the name recorded histories have. */
const WIRE_NAMES: Record<string, Record<string, string>> = { UnmatchedToolCallError: { arguments_: "arguments" } };

/** Not fields: what every error has, the usage (a detail of its own), and keys no plain object may set. */
const NOT_FIELDS = new Set(["name", "message", "stack", "cause", "usage", "__proto__", "constructor", "prototype"]);

/** Options of `toFailure`. */
export interface ToFailureOptions {
  /** Fail at once (the default), or, with false, let Temporal retry the activity that throws it. */
  nonRetryable?: boolean;
  /** The delay before the next attempt of a retried activity (a `Retry-After`). */
  nextRetryDelay?: Duration;
}

/** The Temporal failure that carries `error`: its name as the `type`, its fields as the first detail, its usage (if set) as the next. */
export function toFailure(error: DurableAgentError, options: ToFailureOptions = {}): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.name,
    message: error.message,
    nonRetryable: options.nonRetryable ?? true,
    ...defined({ nextRetryDelay: options.nextRetryDelay }),
    details: [wireFields(error), ...(error.usage ? [{ usage: error.usage }] : [])],
  });
}

/** `error` as plain data, for a record that outlives it (a trace entry). */
export function errorData(error: DurableAgentError): ErrorData {
  return { name: error.name, message: error.message, fields: wireFields(error) };
}

/**
 * The typed error a failure carries, as its own class with its fields (and the run's usage, when
 * the failure has it); `undefined` when it carries none. Takes what a Temporal call rejects with
 * (a `WorkflowFailedError`, a `WorkflowUpdateFailedError`, a `ChildWorkflowFailure`, an
 * `ActivityFailure`: the first typed `ApplicationFailure` in its `cause` chain decides), an
 * `ApplicationFailure` itself, an `ErrorData` record, or an error of this library (returned as it is).
 */
export function fromFailure(failure: unknown): DurableAgentError | undefined {
  if (DurableAgentError.isInstance(failure)) return failure;
  if (isErrorData(failure)) return revive(failure.name, failure.message, failure.fields);
  for (let current = failure, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (!(current instanceof ApplicationFailure) || !current.type) continue;
    const typed = revive(current.type, current.message, current.details?.[0], current);
    if (!typed) continue;
    const usage = usageDetail(current);
    if (usage) typed.usage = usage;
    return typed;
  }
  return undefined;
}

/** The run's usage a failure carries (the first `ApplicationFailure` in its `cause` chain), typed or not. */
export function usageOfFailure(failure: unknown): RunUsage | undefined {
  for (let current = failure, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof ApplicationFailure) return usageDetail(current);
  }
  return undefined;
}

/** The same failure with the run's usage as its last detail, which `fromFailure` puts on the typed error. */
export function withUsage(failure: ApplicationFailure, usage: RunUsage): ApplicationFailure {
  const [fields, ...rest] = failure.details ?? [];
  return ApplicationFailure.create({
    type: failure.type ?? undefined,
    message: failure.message,
    nonRetryable: failure.nonRetryable === true,
    details: [fields ?? {}, ...rest.filter((detail) => !isUsageDetail(detail)), { usage }],
  });
}

/**
 * Rebuilds a typed error from a Temporal failure's `type`, message and first detail.
 * @deprecated Use `fromFailure`, which takes the failure itself (or a wrapping error) and also restores the run's usage.
 */
export function rebuildError(
  type: string | undefined | null,
  message: string,
  details: unknown,
): DurableAgentError | undefined {
  return type ? revive(type, message, details) : undefined;
}

/**
 * An instance of the class exported from errors.ts under `type`, with `message` and the fields,
 * built without its constructor (which would rewrite the message).
 */
function revive(type: string, message: string, fields: unknown, cause?: Error): DurableAgentError | undefined {
  const Class: unknown = Object.hasOwn(errorClasses, type)
    ? (errorClasses as Record<string, unknown>)[type]
    : undefined;
  if (typeof Class !== "function" || !(Class === DurableAgentError || Class.prototype instanceof DurableAgentError))
    return undefined;
  const error = Reflect.construct(Error, cause ? [message, { cause }] : [message], Class) as DurableAgentError;
  const aliases = WIRE_NAMES[type] ?? {};
  const fromWire = Object.fromEntries(Object.entries(aliases).map(([field, wire]) => [wire, field]));
  const own = isPlainObject(fields)
    ? Object.entries(fields)
        .filter(([key]) => !NOT_FIELDS.has(key))
        .map(([key, value]) => [fromWire[key] ?? key, value])
    : [];
  return Object.assign(error, { name: type, [ERROR_MARKER]: true }, Object.fromEntries(own)) as DurableAgentError;
}

/** The error's own fields as plain data, under their wire names; unset ones left out. */
function wireFields(error: DurableAgentError): Record<string, unknown> {
  const aliases = WIRE_NAMES[error.name] ?? {};
  const fields = Object.entries(error).filter(([key, value]) => !NOT_FIELDS.has(key) && value !== undefined);
  return Object.fromEntries(fields.map(([key, value]) => [aliases[key] ?? key, value]));
}

function usageDetail(failure: ApplicationFailure): RunUsage | undefined {
  const found = failure.details?.slice(1).find(isUsageDetail);
  return found?.usage;
}

function isUsageDetail(detail: unknown): detail is { usage: RunUsage } {
  return isPlainObject(detail) && "usage" in detail;
}

function isErrorData(value: unknown): value is ErrorData {
  return (
    isPlainObject(value) &&
    typeof value.name === "string" &&
    typeof value.message === "string" &&
    isPlainObject(value.fields) &&
    !(value instanceof Error)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
