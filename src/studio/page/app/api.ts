/** The studio's JSON API from the page: GET and POST with the server's `{ error }` turned into an `ApiError`. */
import type { ErrorResponse } from "../../api-types.js";

/** A request the server answered with an error status: its status and the server's message. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** True for an `ApiError`, by name (the page has one copy, but the rule holds for every error class). */
  static isInstance(error: unknown): error is ApiError {
    return error instanceof Error && error.name === "ApiError";
  }
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `path` with the defined, non-empty `params` as its query string. */
export function withQuery(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== "") query.set(key, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

async function read<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => undefined)) as T | ErrorResponse | undefined;
  if (!response.ok) {
    const message =
      body && typeof body === "object" && "error" in body ? body.error : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

/** GET `path` (under /api/) as JSON. */
export async function getJson<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  return read<T>(await fetch(withQuery(path, params), { headers: { accept: "application/json" } }));
}

/** POST `body` as JSON to `path`, and read the JSON answer. */
export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  return read<T>(
    await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** A path segment for an id (workflow ids may hold `/`). */
export const segment = (id: string): string => encodeURIComponent(id);
