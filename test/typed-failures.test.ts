/**
 * The one encoder and decoder of typed errors across Temporal (src/core/typed-failures.ts):
 * every class goes through `toFailure`, Temporal's own failure converter (what the server
 * stores) and the wrappers a caller sees, and comes back from `fromFailure` as its class with its
 * message and fields; failures recorded by earlier versions in the committed replay fixtures, and
 * the older wire shapes, decode too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { WorkflowFailedError, WorkflowUpdateFailedError } from "@temporalio/client";
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  DefaultFailureConverter,
  defaultPayloadConverter,
  RetryState,
} from "@temporalio/common";
import { historyFromJSON } from "@temporalio/common/lib/proto-utils.js";
import type { temporal } from "@temporalio/proto";
import { describe, expect, it } from "vitest";
import { errorData, fromFailure, toFailure, withUsage } from "../src/core/typed-failures.js";
import * as errors from "../src/errors.js";
import {
  ApprovalRefusedError,
  ModelApiError,
  rebuildError,
  UnknownApprovalError,
  UnmatchedToolCallError,
  type DurableAgentError,
} from "../src/index.js";
import { errorSamples } from "./support/error-samples.js";

const converter = new DefaultFailureConverter();
/** What the server stores and a client reads back: the failure through Temporal's converter, both ways. */
const overTheWire = (failure: ApplicationFailure) =>
  converter.failureToError(converter.errorToFailure(failure, defaultPayloadConverter), defaultPayloadConverter);
const usage = { inputTokens: 8, outputTokens: 2, totalTokens: 10, modelCalls: 1 };

/** An error's own fields, as a caller reads them. */
function fieldsOf(error: DurableAgentError): Record<string, unknown> {
  return Object.fromEntries(Object.entries(error).filter(([key, value]) => key !== "usage" && value !== undefined));
}

/** The samples of the classes in src/errors.ts: those that cross the workflow boundary. */
const crossing = Object.entries(errorSamples()).filter(([name]) => name in errors);

describe("toFailure → Temporal → fromFailure", () => {
  it.each(crossing)(
    "%s comes back as its class with its message and fields, whichever Temporal error wraps it",
    (name, error) => {
      error.usage = usage;
      const failure = toFailure(error);
      expect(failure).toMatchObject({ type: name, message: error.message, nonRetryable: true });
      const stored = overTheWire(failure);
      const wrapped = [
        stored,
        new ActivityFailure("activity failed", "model.call", "1", RetryState.NON_RETRYABLE_FAILURE, "worker", stored),
        new ChildWorkflowFailure(
          "default",
          { workflowId: "child", runId: "r" },
          "agentRun",
          RetryState.NON_RETRYABLE_FAILURE,
          stored,
        ),
        new WorkflowFailedError("Workflow execution failed", stored, RetryState.NON_RETRYABLE_FAILURE),
        new WorkflowUpdateFailedError("Workflow Update failed", stored),
      ];
      for (const caught of wrapped) {
        const decoded = fromFailure(caught)!;
        expect(decoded).toBeInstanceOf((errors as Record<string, unknown>)[name]);
        expect(decoded).toMatchObject({ name, message: error.message, usage });
        expect(fieldsOf(decoded)).toEqual(fieldsOf(error));
        expect(decoded.cause).toBe(stored); // the worker's stack trace stays reachable
      }
      const data = errorData(error);
      expect(JSON.parse(JSON.stringify(data))).toEqual(data);
      expect(fieldsOf(fromFailure(data)!)).toEqual(fieldsOf(error));
    },
  );

  it("keeps a retryable failure's options, and adds the run's usage as a later detail", () => {
    const failure = toFailure(new ModelApiError("busy", 429, "gpt-test"), { nonRetryable: false, nextRetryDelay: 100 });
    expect(failure).toMatchObject({
      nonRetryable: false,
      nextRetryDelay: 100,
      details: [{ status: 429, modelId: "gpt-test" }],
    });
    const ending = withUsage(failure, usage);
    expect(ending.details).toEqual([{ status: 429, modelId: "gpt-test" }, { usage }]);
    expect(fromFailure(withUsage(ending, { ...usage, totalTokens: 11 }))!.usage).toMatchObject({ totalTokens: 11 });
  });

  it("leaves failures of no known type, and other values, to the caller", () => {
    expect(fromFailure(ApplicationFailure.create({ type: "TypeError", message: "boom" }))).toBeUndefined();
    expect(fromFailure(ApplicationFailure.create({ type: "__proto__", message: "boom" }))).toBeUndefined();
    expect(fromFailure(ApplicationFailure.create({ message: "no type" }))).toBeUndefined();
    expect(fromFailure(new Error("plain"))).toBeUndefined();
    expect(fromFailure("text")).toBeUndefined();
    const own = new ModelApiError("m", 500, "x");
    expect(fromFailure(own)).toBe(own);
  });
});

describe("failures recorded by earlier versions", () => {
  /** Every application failure a committed replay fixture recorded: activity, workflow, child workflow and Update failures. */
  function recordedFailures(): { fixture: string; failure: temporal.api.failure.v1.IFailure }[] {
    const dir = new URL("./fixtures/histories/", import.meta.url);
    return readdirSync(dir)
      .filter((file) => file.endsWith(".json"))
      .flatMap((fixture) => {
        const json = JSON.parse(readFileSync(new URL(fixture, dir), "utf8")) as { history?: unknown };
        const history = historyFromJSON(json.history ?? json);
        return (history.events ?? []).flatMap((event) => {
          const failure =
            event.activityTaskFailedEventAttributes?.failure ??
            event.workflowExecutionFailedEventAttributes?.failure ??
            event.childWorkflowExecutionFailedEventAttributes?.failure ??
            event.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure;
          return failure?.applicationFailureInfo ? [{ fixture, failure }] : [];
        });
      });
  }

  it("decode as their classes with the fields they recorded", () => {
    const recorded = recordedFailures().map(({ fixture, failure }) => ({
      fixture,
      decoded: fromFailure(converter.failureToError(failure, defaultPayloadConverter)),
    }));
    expect(recorded.map((r) => `${r.fixture} ${r.decoded?.name}`).sort()).toEqual([
      "approver-definition-changed.json ApprovalRefusedError",
      // The Python activity's and workflow's own failures (an activity tool's): not the library's, so no class.
      "remote-tools.json undefined",
      "remote-tools.json undefined",
      "session-turns.json ModelApiError",
      "session-turns.json ModelApiError",
      "subagents-budget-and-failure.child-1.json ModelApiError",
      "subagents-budget-and-failure.child-1.json ModelApiError",
      "subagents-budget-and-failure.json ModelApiError",
    ]);
    const refused = recorded.find((r) => r.decoded?.name === "ApprovalRefusedError")!.decoded;
    expect(refused).toBeInstanceOf(ApprovalRefusedError);
    expect(refused).toMatchObject({
      callId: "call_swap",
      by: "mallory",
      why: "canDecide returned false",
      message: expect.stringContaining('canDecide refused "mallory"'),
    });
    const child = recorded.find((r) => r.fixture === "subagents-budget-and-failure.json")!.decoded;
    expect(child).toBeInstanceOf(ModelApiError);
    expect(fieldsOf(child!)).toEqual({ name: "ModelApiError", status: 401, modelId: "gpt-test" }); // nothing more: the recorded detail also held the name
  });

  it("decode the older wire shapes: a field under its wire name, a detail without the fields, the usage after an empty first detail", () => {
    const unmatched = fromFailure(
      ApplicationFailure.create({
        type: "UnmatchedToolCallError",
        message: "no match",
        details: [{ tool: "update_plan", arguments: '{"to":"x"}' }],
      }),
    );
    expect(unmatched).toBeInstanceOf(UnmatchedToolCallError);
    expect(unmatched).toMatchObject({ tool: "update_plan", arguments_: '{"to":"x"}' });
    expect(toFailure(unmatched!).details).toEqual([{ tool: "update_plan", arguments: '{"to":"x"}' }]);
    const unknown = fromFailure(
      ApplicationFailure.create({
        type: "UnknownApprovalError",
        message: 'No tool call "c" is waiting for approval (waiting: none).',
      }),
    );
    expect(unknown).toBeInstanceOf(UnknownApprovalError);
    expect(
      fromFailure(ApplicationFailure.create({ type: "RetryableToolError", message: "m", details: [{}, { usage }] }))!
        .usage,
    ).toEqual(usage);
    expect(rebuildError("ModelApiError", "m", { status: 401, modelId: "x" })).toMatchObject({
      name: "ModelApiError",
      status: 401,
      modelId: "x",
    });
  });
});
