/** Hash routing: `#/runs?…`, `#/run/<workflowId>`, `#/datasets`, `#/evals`, `#/compare?a=&b=`. */
import { useEffect, useState } from "preact/hooks";

/** Where the page is: the path's segments (decoded) and the hash's query. */
export interface Route {
  path: string[];
  params: URLSearchParams;
}

/** Parses a location hash (`#/run/abc?x=1`). */
export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, "");
  const [path = "", query = ""] = text.split("?", 2);
  return { path: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

/** The hash for a path and query (`href("run", id)`). */
export function href(...parts: Array<string | Record<string, string | undefined>>): string {
  const path = parts.filter((p): p is string => typeof p === "string").map(encodeURIComponent);
  const query = new URLSearchParams();
  for (const part of parts)
    if (typeof part === "object")
      for (const [key, value] of Object.entries(part)) if (value !== undefined && value !== "") query.set(key, value);
  const text = query.toString();
  return `#/${path.join("/")}${text ? `?${text}` : ""}`;
}

/** Goes to a hash (as a link would). */
export function navigate(hash: string): void {
  window.location.hash = hash;
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
