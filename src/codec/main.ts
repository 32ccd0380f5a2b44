/**
 * `durable-agent codec-server`: serves the payload codec to the Temporal UI.
 * Keys come from `DURABLE_AGENT_CODEC_KEYS` / `DURABLE_AGENT_CODEC_KEY_ID`.
 *
 *   tsx src/codec/main.ts [--port 8888] [--host 127.0.0.1] [--cors-origin http://localhost:8233 ...]
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { codecKeysFromEnv } from "./codec-keys.js";
import { startCodecServer, type CodecServer } from "./codec-server.js";

/** Usage of the command. */
export const CODEC_SERVER_USAGE = `Usage: durable-agent codec-server [--port 8888] [--host 127.0.0.1] [--cors-origin <ui origin>]...

Serves Temporal's /encode and /decode endpoints with the AES-256-GCM payload codec, so the
Temporal UI shows encrypted runs in plaintext. Keys: DURABLE_AGENT_CODEC_KEYS=id:base64key,...
and DURABLE_AGENT_CODEC_KEY_ID. Set the UI's codec endpoint to the printed URL.`;

/** Runs the command with its arguments (after `codec-server`); resolves once the server listens. */
export async function codecServerCommand(args: string[], log: (line: string) => void = console.log): Promise<CodecServer> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "cors-origin": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    log(CODEC_SERVER_USAGE);
    process.exit(0);
  }
  const keys = codecKeysFromEnv();
  if (!keys) throw new Error(`No keys: set DURABLE_AGENT_CODEC_KEYS (id:base64key, comma-separated).\n\n${CODEC_SERVER_USAGE}`);
  const port = values.port ?? process.env.DURABLE_AGENT_CODEC_SERVER_PORT;
  const server = await startCodecServer({
    keys,
    port: port === undefined ? undefined : Number(port),
    host: values.host,
    corsOrigins: values["cors-origin"],
  });
  log(`durable-agent codec server on ${server.url} (keys: ${[...keys.keys.keys()].join(", ")}; new payloads use "${keys.encryptKeyId}")`);
  log(`Temporal UI: set the codec endpoint to ${server.url} (temporal server start-dev --ui-codec-endpoint ${server.url})`);
  return server;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  codecServerCommand(process.argv.slice(2))
    .then((server) => {
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.close().then(() => process.exit(0)));
    })
    .catch((error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
