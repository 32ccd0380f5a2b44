/**
 * The chat's fetch handlers, shared by the two routes: a chat is a session of `assistant`, owned
 * by the user who started it. `authorize` reads who the caller is from the `user` cookie (a real
 * app checks its own session cookie or token); `false` answers 404.
 */
import { createChatHandler } from "durable-agent";
import { assistant } from "../agents";

/** The `user` cookie's value, if the request has one. */
export function userOf(cookieHeader: string | null): string | undefined {
  for (const pair of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = pair.trim().split("=");
    if (name === "user" && value.length) return decodeURIComponent(value.join("=")) || undefined;
  }
  return undefined;
}

export const chat = createChatHandler({
  agent: assistant,
  authorize: async ({ request }) => {
    const user = userOf(request.headers.get("cookie"));
    return user ? { by: user } : false;
  },
});
