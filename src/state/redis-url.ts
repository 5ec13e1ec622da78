/**
 * The Redis forms of STATE_URL, parsed in one place for the config check and the store: a single
 * server (`redis://`, `rediss://` for TLS) or a Redis Cluster (`redis+cluster://host1:port,host2:port`,
 * `rediss+cluster://` for TLS). Errors never echo the URL: it may carry a password.
 */

export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'single'; url: string; tls: boolean }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

export const REDIS_FORMS =
  'redis://[user:password@]host:port[/db] (rediss:// for TLS) or redis+cluster://[user:password@]host1:port,host2:port,... (rediss+cluster:// for TLS)';

const SCHEME = /^(rediss?)(\+cluster)?:\/\//i;

/** True when the URL names one of the Redis schemes (it may still be malformed: parseRedisUrl says why). */
export function isRedisUrl(url: string): boolean {
  return SCHEME.test(url.trim());
}

/** Parses a Redis STATE_URL; throws an Error naming STATE_URL and the accepted forms (`forms`). */
export function parseRedisUrl(stateUrl: string, forms = `accepted forms: ${REDIS_FORMS}`): RedisTarget {
  const url = stateUrl.trim();
  const scheme = SCHEME.exec(url);
  if (!scheme) throw new Error(`STATE_URL is not a Redis URL; ${forms}`);
  const tls = scheme[1]!.toLowerCase() === 'rediss';
  if (scheme[2]) return { kind: 'cluster', tls, ...parseCluster(url.slice(scheme[0].length), forms) };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`STATE_URL is not a valid Redis URL; ${forms}`);
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (parsed.hostname === '' || (db !== '' && !/^\d+$/.test(db))) {
    throw new Error(`STATE_URL is not a valid Redis URL (host required, database must be a number); ${forms}`);
  }
  return { kind: 'single', url, tls };
}

/** `[user:password@]host:port,host:port[/]` after the scheme. */
function parseCluster(rest: string, forms: string): { nodes: RedisNode[]; username?: string; password?: string } {
  const bad = (why: string) => new Error(`STATE_URL is not a valid Redis Cluster URL (${why}); ${forms}`);
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : undefined;
  let hosts = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = hosts.indexOf('/');
  if (slash >= 0) {
    // A cluster has only database 0: a path naming another one would be silently ignored.
    if (!/^\/0?$/.test(hosts.slice(slash))) throw bad('a cluster has only database 0; drop the /db path');
    hosts = hosts.slice(0, slash);
  }
  const nodes = hosts.split(',').map((part) => parseNode(part.trim(), bad));
  if (nodes.length === 0) throw bad('at least one host:port required');
  const out: { nodes: RedisNode[]; username?: string; password?: string } = { nodes };
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    const user = decode(colon >= 0 ? auth.slice(0, colon) : auth, bad);
    if (user !== '') out.username = user;
    if (colon >= 0) out.password = decode(auth.slice(colon + 1), bad);
  }
  return out;
}

function parseNode(part: string, bad: (why: string) => Error): RedisNode {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i.exec(part);
  if (!m) throw bad('every node must be host:port, separated by commas');
  const port = m[2] === undefined ? 6379 : Number(m[2]);
  if (port < 1 || port > 65535) throw bad('a port must be from 1 to 65535');
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function decode(text: string, bad: (why: string) => Error): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw bad('the user or password is not valid percent-encoding');
  }
}

/** The URL with its password replaced by '***' (for printing the configuration). */
export function redactRedisUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', start);
  if (start < 3 || at < start || colon < 0 || colon > at) return url;
  return `${url.slice(0, colon + 1)}***${url.slice(at)}`;
}
