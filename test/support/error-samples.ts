/**
 * One instance of every error class the package exports, keyed by the class's export name, with
 * fields set. It imports the classes from their modules (not the root), so that a test can bundle
 * it on its own (test/error-classes.test.ts bundles and minifies it with esbuild).
 */
import { CaseFileError, DatasetError } from "../../src/datasets/errors.js";
import {
  AgentDefinitionChangedError,
  AgentOptionsError,
  ApprovalError,
  ApprovalNotWaitingError,
  ApprovalRefusedError,
  ContextValidationError,
  DevServerStartError,
  DuplicateAgentError,
  DurableAgentError,
  ForkError,
  InvalidStreamCursorError,
  InstructionsError,
  InvalidDecisionError,
  InvalidInputError,
  McpServerError,
  ModelApiError,
  OutputValidationError,
  PayloadCodecError,
  PayloadTooLargeError,
  PortInUseError,
  RetryableToolError,
  RunFailedError,
  SessionEndedError,
  TemporalCliNotFoundError,
  TemporalConnectionError,
  TlsConfigError,
  TooManyToolCallsError,
  ToolOutputError,
  UnknownAgentError,
  UnknownApprovalError,
  UnmatchedToolCallError,
} from "../../src/errors.js";
import {
  EvalAssertionError,
  EvalOptionsError,
  EvalReportFormatError,
  EvalTimeoutError,
  ScorerResultError,
} from "../../src/eval/errors.js";

/** A fresh instance of each exported error class, by export name. */
export function errorSamples(): Record<string, DurableAgentError> {
  return {
    DurableAgentError: new DurableAgentError("something failed"),
    AgentOptionsError: new AgentOptionsError("actWhenAsk", "unknown option", "actWhenAsked"),
    InvalidInputError: new InvalidInputError("it is a number"),
    UnknownAgentError: new UnknownAgentError("ghost", ["coach", "billing"]),
    DuplicateAgentError: new DuplicateAgentError("twin", "as a sub-agent"),
    TemporalConnectionError: new TemporalConnectionError("127.0.0.1:1", new Error("connection refused")),
    ModelApiError: new ModelApiError('Model "gpt-test" API error 401', 401, "gpt-test", {
      contentType: "text/html",
      bodyStart: "<html>",
    }),
    PayloadTooLargeError: new PayloadTooLargeError("The input", 3_000_000, 2_097_152, "send less."),
    ToolOutputError: new ToolOutputError("lookup", "a BigInt"),
    RetryableToolError: new RetryableToolError("the plan service is busy"),
    TooManyToolCallsError: new TooManyToolCallsError("gpt-test", 65, 64),
    PayloadCodecError: new PayloadCodecError("no key with that id", "key-2"),
    TlsConfigError: new TlsConfigError("TEMPORAL_TLS_CERT", "/missing/cert.pem", "the file cannot be read"),
    McpServerError: new McpServerError("plans", "http://127.0.0.1:9/mcp", "the connection was lost", true),
    ApprovalError: new ApprovalError("call_1", "Run r-1 continued as new."),
    AgentDefinitionChangedError: new AgentDefinitionChangedError("coach", "v1", "v2", 3),
    ApprovalNotWaitingError: new ApprovalNotWaitingError(
      "call_1",
      "timed-out",
      'Tool call "call_1" is no longer waiting for approval.',
    ),
    ApprovalRefusedError: new ApprovalRefusedError(
      "call_1",
      "mallory",
      "not an approver",
      "canDecide refused mallory.",
    ),
    UnknownApprovalError: new UnknownApprovalError("call_9", ["call_1", "call_2 (billing)"]),
    InvalidDecisionError: new InvalidDecisionError("has no callId"),
    SessionEndedError: new SessionEndedError("coach-session-7"),
    OutputValidationError: new OutputValidationError("✖ expected number → at sets", "Lunges, 3 sets."),
    InstructionsError: new InstructionsError("coach", "boom"),
    ContextValidationError: new ContextValidationError("✖ expected string → at userId"),
    RunFailedError: new RunFailedError("run-1", "Workflow execution failed"),
    TemporalCliNotFoundError: new TemporalCliNotFoundError([
      "TEMPORAL_CLI_PATH: not set",
      "pip: python3 is not installed",
    ]),
    DevServerStartError: new DevServerStartError("exited with code 1", "bind: address already in use"),
    PortInUseError: new PortInUseError(7233, "temporal (pid 42)", "Stop it or pick another port."),
    UnmatchedToolCallError: new UnmatchedToolCallError(
      "update_plan",
      '{"to":"lunges"}',
      "No recorded call of update_plan matches.",
    ),
    ForkError: new ForkError("run-1", "it has no trip 9"),
    InvalidStreamCursorError: new InvalidStreamCursorError("12.x", '"12.x" is not a position of 2 counters'),
    EvalOptionsError: new EvalOptionsError("trials", "must be a positive integer"),
    ScorerResultError: new ScorerResultError("judge", "undefined"),
    EvalTimeoutError: new EvalTimeoutError("eval-1", 600_000),
    EvalAssertionError: new EvalAssertionError('Eval of agent "coach" did not pass.'),
    EvalReportFormatError: new EvalReportFormatError("not a report of schema version 1"),
    DatasetError: new DatasetError("run-1", "it is still running"),
    CaseFileError: new CaseFileError("cases.jsonl", 3, "input", "missing"),
  };
}
