/**
 * The studio's access rules. With a token, every request carries it: `Authorization: Bearer
 * <token>`, or the cookie that `?token=` (on the first page load) sets, HttpOnly and
 * SameSite=Strict; anything else gets 401. Without a token (loopback only), requests must name a
 * loopback host, so a web page cannot reach the studio through a DNS name it rebinds to 127.0.0.1.
 */
import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** True for a host name or address that only this machine reaches. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

function same(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The cookie's name: one per port, so two studios on one machine keep their own. */
export const cookieName = (port: number) => `durable_agent_studio_${port}`;

/** Checks each request against the token (or, without one, its Host header). */
export function studioAuth(token: string | undefined, port: () => number): MiddlewareHandler {
  return async (c, next) => {
    if (token === undefined) {
      const host = (c.req.header("host") ?? "").replace(/:\d+$/, "");
      if (!isLoopback(host))
        return c.json(
          { error: `This studio has no token, so it answers requests for localhost only (not ${host}).` },
          403,
        );
      return next();
    }
    const bearer = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (same(bearer, token) || same(getCookie(c, cookieName(port())), token)) return next();
    if (same(c.req.query("token"), token)) {
      setCookie(c, cookieName(port()), token, { httpOnly: true, sameSite: "Strict", path: "/" });
      return next();
    }
    return c.json(
      {
        error:
          "This studio needs its token: open the URL it printed (with ?token=), or send Authorization: Bearer <token>.",
      },
      401,
    );
  };
}
