/** `{api}/{chatId}/stream`, as the AI SDK's HTTP transport builds the resume URL (a query or fragment of `api` kept at the end). */
export function streamUrl(api: string, chatId: string): string {
  const cut = api.search(/[?#]/);
  const path = cut === -1 ? api : api.slice(0, cut);
  const suffix = cut === -1 ? "" : api.slice(cut);
  return `${path.replace(/\/$/, "")}/${encodeURIComponent(chatId)}/stream${suffix}`;
}

/** `url` with the bare query flag `name` added (`?messages`). */
export function withFlag(url: string, name: string): string {
  const hash = url.indexOf("#");
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? "" : url.slice(hash);
  return `${base}${base.includes("?") ? "&" : "?"}${name}${fragment}`;
}
