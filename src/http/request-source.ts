/**
 * Where a state-changing request comes from, checked the same way by every server the library
 * runs (the studio, the chat handler, the codec server). A browser tells it in `Origin` and
 * `Sec-Fetch-Site`; a page on another origin (another site, or only another port of the same
 * host, which cookies' SameSite does not tell apart) is refused, and so is a body that is not
 * JSON, the one kind a cross-origin page cannot send without a CORS preflight (a `no-cors` fetch
 * sends `text/plain`). A script sends no `Origin`, so one that sends JSON is let through.
 */

/** The parts of a request the check reads: its method and its headers by name. */
export interface RequestSource {
  method: string;
  header: (name: string) => string | null | undefined;
}

/** What the server takes besides its own origin. */
export interface RequestSourceRules {
  /** Other origins allowed to send (`https://app.example.com`), e.g. a proxy's public origin or a UI on another port. */
  allowedOrigins?: Iterable<string>;
  /** Refuse a body whose content type is not JSON (default true). */
  requireJson?: boolean;
}

/** Methods that change nothing: never refused by this check. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Methods whose request carries a body. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The host (`name:port`) an origin names, or undefined for `null` and anything that is not an origin. */
function hostOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === "null" ? undefined : url.host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Why the request must be refused (a sentence meant for whoever wrote the caller), or undefined
 * when it may go on. The server's own origin is the one whose host is the request's `Host`
 * (behind a proxy, `X-Forwarded-Host`): the page the server itself serves.
 */
export function refusedSource(request: RequestSource, rules: RequestSourceRules = {}): string | undefined {
  const method = request.method.toUpperCase();
  if (SAFE_METHODS.has(method)) return undefined;
  const origin = request.header("origin") ?? undefined;
  const allowed = new Set(rules.allowedOrigins ?? []);
  const fromAllowedOrigin = origin !== undefined && allowed.has(origin);
  if (origin !== undefined && !fromAllowedOrigin) {
    const own = [request.header("x-forwarded-host"), request.header("host")].flatMap((h) =>
      h ? [h.split(",")[0]!.trim().toLowerCase()] : [],
    );
    const host = hostOf(origin);
    if (host === undefined || !own.includes(host))
      return `Requests from ${origin} are refused: only this server's own pages may send them (or an allowed origin).`;
  }
  const site = request.header("sec-fetch-site")?.toLowerCase();
  if (!fromAllowedOrigin && (site === "cross-site" || site === "same-site"))
    return `A ${site} request is refused: only this server's own pages may send it (or an allowed origin).`;
  if ((rules.requireJson ?? true) && BODY_METHODS.has(method)) {
    const type = request.header("content-type") ?? "";
    if (!JSON_TYPE.test(type))
      return `The body must be JSON, sent with Content-Type: application/json (got ${type ? JSON.stringify(type) : "none"}).`;
  }
  return undefined;
}
