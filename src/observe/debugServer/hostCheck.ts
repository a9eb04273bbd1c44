// Which Host headers the debug server answers: its own loopback names, so a page on another site cannot read it.

/**
 * Whether `host` (the request's Host header) names this server. A browser sends the page's target host, so a
 * DNS-rebinding page (evil.example resolving to 127.0.0.1) arrives with a foreign name and is refused.
 */
export function isOwnHost(host: string | undefined, port: number, boundHost: string, allowed: readonly string[] = []): boolean {
  if (host === undefined) return false;
  if (allowed.includes(host)) return true;
  const names = new Set(['localhost', '127.0.0.1', '[::1]', boundHost.includes(':') ? `[${boundHost}]` : boundHost, ...allowed]);
  for (const name of names) if (host === name || host === `${name}:${port}`) return true;
  return false;
}
