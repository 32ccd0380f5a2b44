/** `durable-agent deployment set-current <name> <buildId>` and `durable-agent deployment describe <name>`: Temporal Worker Deployments. */
import { describeDeployment, setCurrentBuild, type DeploymentDescription } from "../deployments/deployment-client.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { parseOptions } from "./parse-options.js";

const USAGE = `Usage: durable-agent deployment <set-current|describe> ...

Worker Deployments (workers created with ai.worker({ deployment: { name, buildId } })):

  durable-agent deployment set-current <name> <buildId>
      make the build current: new runs go to it, pinned runs stay on the build they started on,
      sessions move to it when they next continue as new. A worker of the build must have polled.
  durable-agent deployment describe <name> [--json]
      the deployment's builds, which is current, and how many runs each still has open (keep a
      build's workers running until it has none).

Exit codes: 0 done; 2 Temporal unreachable; 64 bad arguments or an
unknown deployment/build.`;

/** gRPC's NOT_FOUND, INVALID_ARGUMENT and FAILED_PRECONDITION: a name or build the server does not know, or a build no worker polled yet. */
const CALLER_ERRORS = new Set([3, 5, 9]);

function table(description: DeploymentDescription): string[] {
  const header = ["BUILD", "STATUS", "CURRENT", "OPEN RUNS", "CREATED"];
  const cells = description.builds.map((b) => [
    b.buildId,
    b.status,
    b.current ? "yes" : "",
    String(b.openRuns),
    b.createdAt ?? "-",
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i]!.length)));
  return [
    `Deployment ${description.name}: current build ${description.currentBuildId ?? "(none)"}`,
    ...[header, ...cells].map((cell) =>
      cell
        .map((text, i) => text.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    ),
  ];
}

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, { json: { type: "boolean" } });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  const [action, name, buildId, ...rest] = positionals;
  if (action === "set-current" && (!name || !buildId || rest.length))
    throw new UsageError("set-current takes a deployment name and a build id.");
  else if (action === "describe" && (!name || buildId !== undefined))
    throw new UsageError("describe takes a deployment name.");
  else if (action !== "set-current" && action !== "describe")
    throw new UsageError(`Unknown action ${JSON.stringify(action ?? "")}: use set-current or describe.`);
  const client = await connection.client();
  try {
    if (action === "set-current") {
      await setCurrentBuild(name!, buildId!, { client });
      io.stdout(`Deployment ${name}: build ${buildId} is current.`);
    } else {
      const description = await describeDeployment(name!, { client });
      for (const line of values.json ? [JSON.stringify(description)] : table(description)) io.stdout(line);
    }
    return EXIT.ok;
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === undefined || !CALLER_ERRORS.has(code)) throw error;
    io.stderr(`The server refused: ${(error as Error).message}`);
    return EXIT.usage;
  }
}

/** `durable-agent deployment`. */
export const deploymentCommand: Command = {
  summary: "switch a Worker Deployment's current build, or describe its builds and open runs",
  usage: USAGE,
  run,
};
