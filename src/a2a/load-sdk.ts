/**
 * `@a2a-js/sdk`, an optional peer dependency: its JSON-RPC transport handlers (A2A 0.3's
 * `message/send` and A2A 1.0's `SendMessage`, each translated to the one request handler this
 * folder writes) are imported on the first A2A request, so an app that serves no A2A never loads it.
 */
import type * as Server from "@a2a-js/sdk/server";
import type * as Compat from "@a2a-js/sdk/compat/v0_3/server";
import { A2ASdkMissingError } from "../errors.js";

/** The parts of the SDK the handler uses. */
export interface A2ASdk {
  JsonRpcTransportHandler: typeof Server.JsonRpcTransportHandler;
  ServerCallContext: typeof Server.ServerCallContext;
  LegacyJsonRpcTransportHandler: typeof Compat.LegacyJsonRpcTransportHandler;
  A2AError: typeof Compat.LegacyA2AError;
}

/** Variables, so that bundlers leave the optional package to Node's resolution at run time. */
const SERVER = "@a2a-js/sdk/server";
const COMPAT = "@a2a-js/sdk/compat/v0_3/server";
let loaded: Promise<A2ASdk> | undefined;

/** The SDK's server parts, imported once per process; an `A2ASdkMissingError` when the package is not installed. */
export function loadA2ASdk(): Promise<A2ASdk> {
  loaded ??= Promise.all([
    import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ SERVER) as Promise<typeof Server>,
    import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ COMPAT) as Promise<typeof Compat>,
  ]).then(
    ([server, compat]) => ({
      JsonRpcTransportHandler: server.JsonRpcTransportHandler,
      ServerCallContext: server.ServerCallContext,
      LegacyJsonRpcTransportHandler: compat.LegacyJsonRpcTransportHandler,
      A2AError: compat.LegacyA2AError,
    }),
    (error: unknown) => {
      loaded = undefined;
      throw new A2ASdkMissingError(error);
    },
  );
  return loaded;
}
