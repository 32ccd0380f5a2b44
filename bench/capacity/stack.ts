/** The stack for `bench:capacity --stack`: temporal-server on PostgreSQL in one process, no workers and no UI, with a URL to its PostgreSQL. */
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseCredentials } from "../../deploy/stack/environment.js";
import { startStack } from "../../deploy/stack/index.js";
import { findFreeFrontendPort, findFreePort } from "../../deploy/stack/processes.js";

export async function startCapacityStack() {
  const dir = mkdtempSync(join(tmpdir(), "bench-capacity-"));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user under root
  const postgresPort = await findFreePort();
  const stack = await startStack({
    dataDir: dir,
    port: await findFreeFrontendPort(),
    postgresPort,
    uiPort: false,
    redis: false,
    workers: 0,
    log: (line) => console.log(`stack: ${line}`),
  });
  const { user, password } = databaseCredentials();
  return {
    address: stack.address,
    namespace: stack.namespace,
    postgresUrl: `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${postgresPort}/postgres`,
    stop: () => stack.stop(),
  };
}
