/**
 * Temporal's client SDK, loaded when first needed: importing the root (`durable-agent`) loads
 * neither `@temporalio/client` (with gRPC) nor `@temporalio/proto` (protobufjs and the JSON of the
 * whole API), which together were most of its import cost. The first call that talks to Temporal
 * (`agent.run`, `start`, a session's `send`, `ai.getRun`, `ai.connect`) loads them, once per
 * process; a caller that passes its own `client` has loaded them already. Types come through
 * `import type`, and `instanceof` checks against the SDK's error classes take the classes from
 * here, after the call that threw them.
 */
import type * as TemporalClient from "@temporalio/client";
import type * as TemporalCommon from "@temporalio/common";
import type TemporalProto from "@temporalio/proto";
import type * as PayloadDecoding from "@temporalio/common/lib/internal-non-workflow/index.js";

let client: Promise<typeof TemporalClient> | undefined;
let common: Promise<typeof TemporalCommon> | undefined;
let proto: Promise<typeof TemporalProto> | undefined;
let decoding: Promise<typeof PayloadDecoding> | undefined;

/** `@temporalio/client`, imported once per process. */
export function loadTemporalClient(): Promise<typeof TemporalClient> {
  client ??= import("@temporalio/client");
  return client;
}

/** `@temporalio/common` (payload converters and codecs), imported once per process. */
export function loadTemporalCommon(): Promise<typeof TemporalCommon> {
  common ??= import("@temporalio/common");
  return common;
}

/** `@temporalio/proto`'s `temporal` namespace holder (a CommonJS module: its default export under Node's ESM loader). */
export function loadTemporalProto(): Promise<typeof TemporalProto> {
  proto ??= import("@temporalio/proto").then((module) => module.default);
  return proto;
}

/** `@temporalio/common`'s payload helpers outside workflows (decoding with a client's codecs), imported once per process. */
export function loadPayloadDecoding(): Promise<typeof PayloadDecoding> {
  decoding ??= import("@temporalio/common/lib/internal-non-workflow/index.js");
  return decoding;
}
