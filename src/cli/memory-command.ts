/**
 * `durable-agent memory forget --user <id>` and `durable-agent memory inspect --user <id>`: a
 * user's memory (working memory and recalled messages) in a memory store, `--pglite <dir>` or
 * `--postgres <url>` (or DURABLE_AGENT_MEMORY_URL).
 */
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import { parseOptions } from "./parse-options.js";
import { textTable } from "./text-table.js";

const USAGE = `Usage: durable-agent memory <forget|inspect> --user <id> (--pglite <dir> | --postgres <url>) [--json]

A user's memory across sessions (ai.memory()): the working memory document and the messages kept
for recall.

  durable-agent memory inspect --user <id>
      what is stored for the user: the working memory (its version) and the messages, oldest first.
  durable-agent memory forget --user <id>
      deletes the user's working memory and messages. Runs started afterwards recall nothing of
      them; a fork or playback of an older run still shows what that run recalled (its history).

Options:
  --user <id>        whose memory (a run's \`user\`)
  --pglite <dir>     the PGlite store in this data directory
  --postgres <url>   the PostgreSQL store at this URL (default: DURABLE_AGENT_MEMORY_URL)
  --json             inspect: print JSON
  -h, --help         show this help

Exit codes: 0 done; 2 the store cannot be reached or opened; 64 bad arguments.`;

/** A user id as runs take it: 1 to 256 characters, no control characters. */
function checkUser(user: string | undefined): string {
  if (user === undefined || user === "") throw new UsageError("Name the user: --user <id>.");
  // eslint-disable-next-line no-control-regex
  if (user.length > 256 || /[\u0000-\u001f\u007f]/.test(user))
    throw new UsageError("A user id is at most 256 characters, without control characters.");
  return user;
}

async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    user: { type: "string" },
    pglite: { type: "string" },
    postgres: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  const [action, ...rest] = positionals;
  if (action !== "forget" && action !== "inspect")
    throw new UsageError(action === undefined ? "Choose forget or inspect." : `Unknown memory command "${action}".`);
  if (rest.length > 0) throw new UsageError(`Unexpected argument(s): ${rest.join(" ")}.`);
  const user = checkUser(values.user);
  const url =
    values.postgres ?? (values.pglite === undefined ? process.env.DURABLE_AGENT_MEMORY_URL || undefined : undefined);
  if (values.pglite !== undefined && values.postgres !== undefined)
    throw new UsageError("Give one store: --pglite or --postgres.");
  if (values.pglite === undefined && url === undefined)
    throw new UsageError("Name the store: --pglite <dir> or --postgres <url> (or set DURABLE_AGENT_MEMORY_URL).");
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url))
    throw new UsageError("--postgres (or DURABLE_AGENT_MEMORY_URL) takes a postgres:// URL.");
  const { memoryStores, MemoryStoreUnavailableError, MemoryStoreMissingError } = await import("../memory/index.js");
  const log = (line: string) => io.stderr(line);
  const store =
    url !== undefined ? memoryStores.postgres({ url, log }) : memoryStores.pglite({ dataDir: values.pglite!, log });
  try {
    if (action === "forget") {
      const { messages, workingMemory } = await store.forget(user);
      io.stdout(
        `Forgot user ${user}: ${messages} message(s)${workingMemory ? " and the working memory" : ", no working memory"}.`,
      );
      return EXIT.ok;
    }
    const stored = await store.inspect(user);
    if (values.json) return (io.stdout(JSON.stringify({ user, ...stored }, null, 2)), EXIT.ok);
    const working = stored.workingMemory;
    io.stdout(
      working
        ? `Working memory of ${user} (version ${working.version}, ${working.updatedAt}):`
        : `No working memory for ${user}.`,
    );
    if (working)
      io.stdout(typeof working.content === "string" ? working.content : JSON.stringify(working.content, null, 2));
    io.stdout(`${stored.messages.length} message(s)${stored.messages.length ? ":" : "."}`);
    const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text).replace(/\s+/g, " ");
    const cells = stored.messages.map((m) => [m.createdAt, m.session, String(m.turn), m.role, clip(m.text)]);
    if (cells.length)
      for (const line of textTable(["CREATED", "SESSION", "TURN", "ROLE", "TEXT"], cells)) io.stdout(line);
    return EXIT.ok;
  } catch (error) {
    if (!MemoryStoreUnavailableError.isInstance(error) && !MemoryStoreMissingError.isInstance(error)) throw error;
    io.stderr(error.message);
    return EXIT.infrastructure;
  } finally {
    await store.close();
  }
}

/** `durable-agent memory`. */
export const memoryCommand: Command = {
  summary: "inspect or forget a user's memory (working memory and recalled messages) in a memory store",
  usage: USAGE,
  run,
  noConnection: "memory reads its memory store (--pglite or --postgres) and connects to no Temporal server",
};
