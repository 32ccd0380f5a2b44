/** How the transport retries a resume while the network or the server is down. */
export interface ReconnectOptions {
  /** Resume attempts in a row without a new chunk before the stream ends with an error chunk. Default 8. */
  maxAttempts?: number;
  /** The wait before the second attempt (the first is immediate), doubled for each next one. Default 500 ms. */
  initialDelayMs?: number;
  /** The longest wait between two attempts. Default 5000 ms. */
  maxDelayMs?: number;
}

/** The defaults of {@link ReconnectOptions}: about 22 s of retries before giving up. */
export const DEFAULT_RECONNECT: Required<ReconnectOptions> = { maxAttempts: 8, initialDelayMs: 500, maxDelayMs: 5000 };

/** The wait before resume attempt `attempt` (1 for the first): none, then doubling up to the cap. */
export function delayBefore(attempt: number, options: Required<ReconnectOptions>): number {
  if (attempt <= 1) return 0;
  return Math.min(options.initialDelayMs * 2 ** (attempt - 2), options.maxDelayMs);
}

/** Waits `ms`, or less if `signal` aborts first (then it rejects with the signal's reason). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
