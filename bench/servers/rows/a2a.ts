/**
 * A2A's rows of `npm run bench:servers`: one `message/send` of the one-trip agent through
 * createA2AHandler (served by Node on loopback, `@a2a-js/sdk`'s client speaking A2A 0.3 JSON-RPC),
 * each a new task in a new context (a new session), answered when done.
 */
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Client as A2AClient, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import type { Task } from "@a2a-js/sdk";
import { createA2AHandler } from "../../../src/index.js";
import type { ServerRows } from "../rows.js";

/** The A2A rows. */
export const a2aRows: ServerRows = {
  protocol: "A2A",
  async start({ client, agent, taskQueue }) {
    let handler: ((request: Request) => Promise<Response>) | undefined;
    const server = await new Promise<ReturnType<typeof serve>>((done) => {
      const started = serve({ fetch: (request: Request) => handler!(request), port: 0, hostname: "127.0.0.1" }, () =>
        done(started),
      );
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    handler = createA2AHandler({ agents: [agent], client, taskQueue, baseUrl, authorize: () => ({ by: "bench" }) });
    const card = await new DefaultAgentCardResolver().resolve(baseUrl);
    const a2a = new A2AClient(new LegacyJsonRpcTransport({ endpoint: baseUrl }), card);
    const send = async (text: string) => {
      const task = (await a2a.sendMessage({
        tenant: "",
        message: {
          messageId: randomUUID(),
          contextId: "",
          taskId: "",
          role: 1,
          parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      })) as Task;
      if (task.status?.state !== 3) throw new Error(`the A2A task did not complete: ${JSON.stringify(task.status)}`);
    };
    return {
      subjects: [{ label: "A2A message/send (JSON-RPC, A2A 0.3)", call: (round) => send(`Hello #${round}`) }],
      checks: async () => [],
      async close() {
        server.close();
        if ("closeAllConnections" in server) server.closeAllConnections();
      },
    };
  },
};
