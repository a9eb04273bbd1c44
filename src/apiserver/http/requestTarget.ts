// The request target (`req.url`) checked and split before anything routes on it: only origin-form paths, decoded once.
import { badRequest } from '../apimachinery/statusError.js';

/** A checked request target. */
export interface RequestTarget {
  /** The target as a URL on this server; its path was checked, its query is as sent. */
  readonly url: URL;
  /** The path's segments, percent-decoded, empty ones dropped. */
  readonly segments: readonly string[];
}

/**
 * Checks and splits a request target. Only the origin form (`/path?query`) names something on this server: the
 * absolute form (`http://x/…`), the authority form (`CONNECT host:443`) and `*` are refused rather than resolved,
 * because resolving them against a base URL either throws (`x:99999`) or silently names another path.
 *
 * @throws StatusError `400` for another form, a malformed percent-escape, a backslash, a `.` or `..` segment
 *   (also encoded: `%2e%2e`), or an encoded slash (`%2F`) — a URL parser would fold each of these into a
 *   different path, possibly a cluster-wide one, after checks made on the original.
 */
export function parseRequestTarget(target: string | undefined): RequestTarget {
  const raw = target ?? '/';
  if (!raw.startsWith('/')) throw badRequest(`invalid request target ${JSON.stringify(clip(raw))}: only a path (origin form) is served`);
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const segments = pathSegments(path);
  let url: URL;
  try {
    // Concatenated, not resolved against a base: `//host/x` must stay a path, not become another host.
    url = new URL(`http://127.0.0.1${raw}`);
  } catch {
    throw badRequest(`invalid request target ${JSON.stringify(clip(raw))}: not a valid URL path`);
  }
  return { url, segments };
}

/**
 * A URL path's segments, percent-decoded, empty ones dropped.
 *
 * @throws StatusError `400` as {@link parseRequestTarget} does for the path part.
 */
export function pathSegments(path: string): string[] {
  if (path.includes('\\')) throw badRequest(`invalid path ${JSON.stringify(clip(path))}: backslashes are not allowed`);
  const out: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      throw badRequest(`invalid path ${JSON.stringify(clip(path))}: malformed percent-escape in segment ${JSON.stringify(clip(raw))}`);
    }
    if (seg === '.' || seg === '..') throw badRequest(`invalid path ${JSON.stringify(clip(path))}: "." and ".." segments are not allowed`);
    if (seg.includes('/') || seg.includes('\\')) {
      throw badRequest(
        `invalid path ${JSON.stringify(clip(path))}: encoded slashes are not allowed in segment ${JSON.stringify(clip(raw))}`,
      );
    }
    out.push(seg);
  }
  return out;
}

// Error messages echo the target; a hostile one could be megabytes long.
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
