/**
 * What the studio checks on every request before its routes, and the headers it sends on every
 * answer. A state-changing request must come from the studio's own page (or a script: no `Origin`)
 * with a JSON body, whatever the token says: a page on another site, or on another port of the
 * same host (which the cookie's SameSite does not tell apart), is refused with 403. The page may
 * not be framed by anyone (`frame-ancestors 'none'`); the eval reports only by the studio's own
 * compare view.
 */
import type { Client } from "@temporalio/client";
import type { MiddlewareHandler } from "hono";
import { checkTemporalReachable } from "../../client/temporal-reachable.js";
import { refusedSource } from "../../http/index.js";
import type { ErrorResponse } from "../api-types.js";

/** The page's policy: its own scripts, styles, images and API only, framed by no one. */
const PAGE_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** An eval report's policy: its inline styles only (it carries the same in a meta tag), framed by the studio's compare view. */
const REPORT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/** Refuses (403) a POST, PUT, PATCH or DELETE from another origin or site, or whose body is not JSON. */
export function sameOriginOnly(): MiddlewareHandler {
  return async (c, next) => {
    const refused = refusedSource({ method: c.req.method, header: (name) => c.req.header(name) });
    if (refused) return c.json<ErrorResponse>({ error: refused }, 403);
    return next();
  };
}

/** Sends the content security policy, and no framing, sniffing or referrer (the first URL carries the token), on every answer. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const report = c.req.path.startsWith("/api/reports/");
    const headers = c.res.headers;
    headers.set("Content-Security-Policy", report ? REPORT_POLICY : PAGE_POLICY);
    headers.set("X-Frame-Options", report ? "SAMEORIGIN" : "DENY");
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
  };
}

/** Routes that reach Temporal: the runs and their actions, and what starts runs or reads them (saving a dataset, starting an eval). */
const REACHES_TEMPORAL = /^\/api\/runs(\/|$)|^\/api\/(datasets|evals)$/;

/**
 * Answers 503 within seconds while Temporal is down (its client would retry each call for about
 * 20 s): a route that reaches Temporal first checks that it can, when the client is not connected.
 */
export function temporalReachable(client: Client): MiddlewareHandler {
  return async (c, next) => {
    if (REACHES_TEMPORAL.test(c.req.path) && (c.req.method !== "GET" || c.req.path.startsWith("/api/runs")))
      await checkTemporalReachable(client);
    return next();
  };
}
