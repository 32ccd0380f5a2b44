/** Temporal's runtime in the CLI's process: installed once, logging at WARN, before its first use. */
import { IllegalStateError } from "@temporalio/common";

let runtimeInstalled = false;

/**
 * Temporal's runtime logs at WARN in the CLI; `Runtime.install` may run once per process, before the
 * runtime's first use. A process that runs `main` after installing its own (a test) keeps its own.
 */
export async function installCliRuntime(): Promise<void> {
  if (runtimeInstalled) return;
  const { DefaultLogger, Runtime } = await import("@temporalio/worker");
  try {
    Runtime.install({ logger: new DefaultLogger("WARN") });
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error; // installed already: keep that one
  }
  runtimeInstalled = true;
}
