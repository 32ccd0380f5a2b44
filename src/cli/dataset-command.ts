/**
 * `durable-agent dataset --out cases.jsonl (--workflow-id <id>... | --query <q>)`: finished runs
 * as an eval case file (JSON Lines), with a progress line on a terminal.
 */
import { casesFromRuns } from "../datasets/cases-from-runs.js";
import { writeCases } from "../datasets/case-file.js";
import { DatasetError } from "../datasets/errors.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { parseOptions, positiveInteger } from "./parse-options.js";
import { defined } from "../core/defined.js";

const USAGE = `Usage: durable-agent dataset --out <file> (--workflow-id <id>... | --query <query>) [options]

Reads finished runs from Temporal and writes them as eval cases, one JSON object a line (schema:
docs/recorded-case.schema.json): each case's input, context and what the run did (reply, tool calls
with their outputs, backstop prompts). A session gives one case per message. Replay the file with
\`durable-agent eval <module> --cases <file>\` (recorded tools by default). Encrypted histories
are read with DURABLE_AGENT_CODEC_KEYS.

Options:
  --out <file>          the case file to write (JSON Lines)
  --workflow-id <id>    a run by workflow id (repeatable)
  --query <query>       a visibility query, e.g. 'DurableAgentName = "coach" AND DurableAgentRefusals > 0'
                        (only completed runs; listed page by page)
  --agent <name>        only runs of this agent
  --limit <n>           at most n cases
  -h, --help            show this help

Exit codes: 0 written; 2 Temporal unreachable or a run that cannot be read; 64 bad arguments.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    out: { type: "string" },
    "workflow-id": { type: "string", multiple: true },
    query: { type: "string" },
    agent: { type: "string" },
    limit: { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length > 0) throw new UsageError(`Unexpected argument(s): ${positionals.join(" ")}.`);
  if (!values.out) throw new UsageError("Name the case file to write: --out <file>.");
  const workflowIds = values["workflow-id"] ?? [];
  if (workflowIds.length === 0 && values.query === undefined)
    throw new UsageError("Choose the runs: --workflow-id <id> (repeatable) or --query <query>.");
  const limit = positiveInteger("limit", values.limit);
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  const client = await connection.client();
  try {
    const cases = await casesFromRuns({
      client,
      ...(workflowIds.length ? { workflowIds } : {}),
      ...defined({ query: values.query, agent: values.agent, limit }),
      ...(tty
        ? {
            onProgress: ({ runs, cases }: { runs: number; cases: number }) =>
              void process.stderr.write(
                `\rRead ${runs} run(s), ${cases} case(s) (${((Date.now() - started) / 1000).toFixed(1)}s)`,
              ),
          }
        : {}),
    });
    if (tty) process.stderr.write("\n");
    await writeCases(values.out, cases);
    io.stdout(`Wrote ${cases.length} case(s) to ${values.out} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return EXIT.ok;
  } catch (error) {
    if (!DatasetError.isInstance(error)) throw error;
    io.stderr(error.message);
    return EXIT.infrastructure;
  }
}

/** `durable-agent dataset`. */
export const datasetCommand: Command = {
  summary: "write finished runs as an eval case file (JSON Lines) to play back with recorded tools",
  usage: USAGE,
  run,
};
