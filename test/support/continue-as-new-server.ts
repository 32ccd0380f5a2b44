/**
 * A dev server of a test file's own on which runs continue as new soon: Temporal suggests it
 * after 40 history events, so a handful of trips reach a second run.
 */
import type { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { startDevServer, type DevServer } from "../../src/testing/index.js";

/** The dev server's flags that make Temporal suggest continue-as-new after 40 history events. */
export const CONTINUE_AS_NEW_SOON = ["--dynamic-config-value", "limit.historyCount.suggestContinueAsNew=40"];

/** A dev server with `CONTINUE_AS_NEW_SOON`, a worker connection to it and its client. */
export async function startContinueAsNewServer(): Promise<{
  server: DevServer;
  connection: NativeConnection;
  client: Client;
}> {
  const server = await startDevServer({ extraArgs: CONTINUE_AS_NEW_SOON });
  const connection = await NativeConnection.connect({ address: server.address });
  return { server, connection, client: server.env.client };
}
