/**
 * A server-sent-events `Response`: each item of `source` written as one SSE message by `frame`,
 * then `last` (if any), with the event-stream headers, then `headers`, then `init`'s own.
 */
export function sseResponse<T>(
  source: ReadableStream<T>,
  frame: (item: T) => string,
  init: ResponseInit = {},
  options: { last?: string; headers?: Record<string, string> } = {},
): Response {
  const encoder = new TextEncoder();
  const body = source.pipeThrough(
    new TransformStream<T, Uint8Array>({
      transform(item, controller) {
        controller.enqueue(encoder.encode(frame(item)));
      },
      flush(controller) {
        if (options.last !== undefined) controller.enqueue(encoder.encode(options.last));
      },
    }),
  );
  return new Response(body, {
    ...init,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...options.headers,
      ...init.headers,
    },
  });
}
