/**
 * One page of runs from Temporal's visibility store, for every list that pages runs (the studio's
 * runs list, MCP's `tasks/list`). A page token goes out as base64url text and comes back as the
 * same bytes; a token or query the server refuses is the caller's error to name.
 */
import type { Client } from "@temporalio/client";

/** gRPC's status for a request the server rejects as invalid (a query it cannot parse, a page token it did not give). */
const INVALID_ARGUMENT = 3;

/** The store's page token from the text a list gave (empty for the first page); `undefined` when no list gave it. */
export function decodePageToken(text: string | undefined): Uint8Array | undefined {
  if (text === undefined || text === "") return Buffer.alloc(0);
  const token = Buffer.from(text, "base64url");
  try {
    // Every visibility store Temporal has writes its page token as JSON.
    JSON.parse(token.toString("utf8"));
  } catch {
    return undefined;
  }
  return token;
}

/** The text a list gives for the next page's token; `undefined` on the last page. */
export const encodePageToken = (token: Uint8Array | null | undefined): string | undefined =>
  token && token.length > 0 ? Buffer.from(token).toString("base64url") : undefined;

/** One visibility page; when the server rejects the query or token as invalid, `rejected(error)` is thrown instead. */
export async function listExecutionsPage(
  client: Client,
  { query, pageSize, pageToken }: { query: string; pageSize: number; pageToken: Uint8Array },
  rejected: (error: Error) => Error,
) {
  try {
    const { namespace } = client.options;
    return await client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize,
      nextPageToken: pageToken,
    });
  } catch (error) {
    if ((error as { code?: number }).code === INVALID_ARGUMENT) throw rejected(error as Error);
    throw error;
  }
}
