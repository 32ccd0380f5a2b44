/**
 * `durable-agent codec-server`: serves the payload codec to the Temporal UI. A `Command` for the
 * CLI (`COMMANDS["codec-server"] = codecServerCommand` in src/cli/index.ts), and an entry point:
 *
 *   tsx src/cli/codec-server-command.ts [--port 8888] [--host 127.0.0.1] [--cors-origin http://localhost:8233 ...]
 *
 * Keys come from `DURABLE_AGENT_CODEC_KEYS` / `DURABLE_AGENT_CODEC_KEY_ID`.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { codecKeysFromEnv } from "../codec/codec-keys.js";
import { startCodecServer, type CodecServer } from "../codec/codec-server.js";
import { untilStopped } from "./serving.js";

const USAGE = `Usage: durable-agent codec-server [--port 8888] [--host 127.0.0.1] [--cors-origin <origin>]...

Serves Temporal's POST /encode and POST /decode with the AES-256-GCM payload codec, so the
Temporal UI shows encrypted runs in plaintext to whoever can reach this server. Point the UI at
the printed URL (temporal server start-dev --ui-codec-endpoint <url>, or the UI's codec setting).

Options:
  --port <n>            default DURABLE_AGENT_CODEC_SERVER_PORT, else 8888
  --host <ip>           default 127.0.0.1 (this machine only)
  --cors-origin <url>   the UI's origin, repeatable; default DURABLE_AGENT_CODEC_CORS_ORIGINS,
                        else http://localhost:8233, http://127.0.0.1:8233, http://localhost:8080
  -h, --help            show this help

Environment:
  DURABLE_AGENT_CODEC_KEYS     id:base64key pairs, comma-separated (keys are 32 random bytes)
  DURABLE_AGENT_CODEC_KEY_ID   the id that encrypts (needed when there are several keys)

Exit codes: 0 stopped by a signal; 2 the server did not start; 64 bad arguments, or no keys.`;

/** Starts the codec server from command-line arguments; `UsageError` for bad ones, `"help"` for --help. */
export async function startCodecServerFromArgs(
  args: string[],
  log: (line: string) => void,
): Promise<CodecServer | "help"> {
  let values: { port?: string; host?: string; "cors-origin"?: string[]; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "cors-origin": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const portText = values.port ?? process.env.DURABLE_AGENT_CODEC_SERVER_PORT;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new UsageError(`--port must be a port number (got "${portText}").`);
  const keys = codecKeysFromEnv();
  if (!keys)
    throw new UsageError(
      "No keys: set DURABLE_AGENT_CODEC_KEYS=id:base64key (for a new key: openssl rand -base64 32).",
    );
  const server = await startCodecServer({ keys, port, host: values.host, corsOrigins: values["cors-origin"] });
  log(
    `durable-agent codec server on ${server.url} (keys: ${[...keys.keys.keys()].join(", ")}; new payloads use "${keys.encryptKeyId}")`,
  );
  log(`Point the Temporal UI's codec endpoint at ${server.url}`);
  return server;
}

/** Serves the codec until SIGINT/SIGTERM; resolves to the exit code. */
async function serve(args: string[], io: CommandIO): Promise<number> {
  const server = await startCodecServerFromArgs(args, io.stdout);
  if (server === "help") {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  await untilStopped();
  await server.close();
  return EXIT.ok;
}

/** `durable-agent codec-server`: runs until SIGINT/SIGTERM. */
export const codecServerCommand: Command = {
  summary: "serve the payload codec to the Temporal UI (POST /encode, /decode)",
  usage: USAGE,
  run: serve,
  noConnection: "codec-server serves the payload codec to the Temporal UI and connects to no Temporal server",
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const io: CommandIO = { stdout: (line) => console.log(line), stderr: (line) => console.error(line) };
  serve(process.argv.slice(2), io).then(
    (code) => process.exit(code),
    (error: unknown) => {
      io.stderr(
        UsageError.isInstance(error)
          ? `${error.message}\n\n${USAGE}`
          : error instanceof Error
            ? error.message
            : String(error),
      );
      process.exit(UsageError.isInstance(error) ? EXIT.usage : EXIT.infrastructure);
    },
  );
}
