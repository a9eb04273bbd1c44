// Who may talk to the server at all: the Host and Origin headers a browser cannot forge, and an optional bearer token.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../apimachinery/statusError.js';

/** What {@link checkAccess} lets through. */
export interface AccessPolicy {
  /** The port the server is bound to; Host and Origin must name it. */
  port: number;
  /** Host names (any of them with the bound port) or `host:port` pairs allowed besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts: readonly string[];
  /** Origins (`scheme://host[:port]`) allowed to send requests besides the server's own. */
  allowedOrigins: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Whether the server speaks HTTPS (its own origin is then `https://…`). */
  tls: boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Refuses what a web page could make a browser send to a server on loopback. A page on any site can make the
 * browser send requests to 127.0.0.1 (with its own `Origin`), and DNS rebinding can give such a page a name that
 * resolves to 127.0.0.1 (with that name as `Host`): both headers are set by the browser, not by the page.
 *
 * @throws StatusError `403 Forbidden` for a `Host` other than loopback or `allowedHosts` at the bound port, or an
 *   `Origin` other than the server's own or `allowedOrigins` (`Origin: null` included); `401 Unauthorized` when a
 *   token is required and the request does not carry it.
 */
export function checkAccess(headers: IncomingHttpHeaders, policy: AccessPolicy): void {
  const host = headers.host;
  // HTTP/1.0 requests may omit Host; no browser sends one.
  if (host !== undefined && !hostAllowed(host.toLowerCase(), policy)) {
    throw forbidden(
      `Host ${JSON.stringify(clip(host))} is not allowed: this server answers to localhost, 127.0.0.1 and [::1] on port ${policy.port}${policy.allowedHosts.length > 0 ? ` and to ${policy.allowedHosts.join(', ')}` : ''}`,
    );
  }
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(origin.toLowerCase(), policy)) {
    throw forbidden(
      `Origin ${JSON.stringify(clip(origin))} is not allowed: requests from web pages are refused unless their origin is listed in allowedOrigins`,
    );
  }
  if (policy.token !== undefined && !bearerMatches(headers.authorization, policy.token)) {
    throw new StatusError(401, 'Unauthorized', 'Unauthorized');
  }
}

function hostAllowed(host: string, p: AccessPolicy): boolean {
  const { name, port } = splitHost(host);
  const portOk = port === p.port || (port === undefined && p.port === (p.tls ? 443 : 80));
  if (portOk && LOOPBACK_NAMES.includes(name)) return true;
  return p.allowedHosts.some((a) => {
    const allowed = a.toLowerCase();
    return allowed.includes(':') && !allowed.startsWith('[') ? allowed === host : portOk && allowed === name;
  });
}

function originAllowed(origin: string, p: AccessPolicy): boolean {
  if (p.allowedOrigins.some((o) => o.toLowerCase().replace(/\/$/, '') === origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything unparsable
  }
  return url.protocol === (p.tls ? 'https:' : 'http:') && hostAllowed(url.host, p);
}

function splitHost(host: string): { name: string; port?: number } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  if (!m) return { name: host };
  const port = m[2] as string | undefined; // an optional group may be absent, whatever the type says
  return { name: m[1]!, port: port === undefined ? undefined : Number(port) };
}

// Compared through digests of equal length, so neither the token's length nor its prefix leaks through timing.
function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return false;
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}

function forbidden(message: string): StatusError {
  return new StatusError(403, 'Forbidden', `forbidden: ${message}`);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
