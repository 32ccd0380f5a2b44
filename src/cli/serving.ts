/** What the CLI's long-running servers (studio, codec, mcp, a2a) share: waiting for a stop, and the loopback check. */

/** Resolves on SIGINT or SIGTERM. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
  });
}

/** A Host header naming this machine's loopback (the guard against DNS rebinding for a local server without a token). */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/i;

/** True when the request's Host header names this machine's loopback (a request without one does not). */
export function namesLoopback(request: Request): boolean {
  return LOOPBACK_HOST.test(request.headers.get("host") ?? "");
}
