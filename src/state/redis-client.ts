/**
 * The ioredis client a RedisStore talks through: one server (`Redis`) or a Redis Cluster
 * (`Redis.Cluster`), plain or TLS, from a parsed STATE_URL (redis-url.ts).
 */
import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { RedisNode, RedisTarget } from './redis-url';

export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  /**
   * REDIS_TLS_VERIFY: check the server's TLS certificate (default true). False accepts any
   * certificate, e.g. the self-signed ones of Heroku-style Redis add-ons; traffic stays encrypted.
   */
  tlsVerify?: boolean;
}

export interface OpenedClient {
  client: RedisClient;
  /**
   * Resolves once connected, or on a first error that reconnecting may cure (the store keeps
   * retrying and queues commands meanwhile). Rejects, with the client disconnected, when the server's
   * TLS certificate is refused: retrying cannot cure that, and it would otherwise stall every command.
   */
  firstContact: Promise<void>;
}

const retryStrategy = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 6), 2000);

export function openRedisClient(target: RedisTarget, options: RedisClientOptions = {}): OpenedClient {
  const tls = target.tls ? { tls: { rejectUnauthorized: options.tlsVerify !== false } } : {};
  const verifyNodes = target.kind === 'cluster' && target.tls && options.tlsVerify !== false ? target.nodes : [];
  const base: RedisOptions = { maxRetriesPerRequest: null, enableOfflineQueue: true, ...tls };
  const client: RedisClient =
    target.kind === 'single'
      ? new Redis(target.url, { ...base, retryStrategy })
      : new Cluster(target.nodes, {
          redisOptions: { ...base, username: target.username, password: target.password },
          clusterRetryStrategy: retryStrategy,
          enableOfflineQueue: true,
          // Connects once the certificates passed (watchFirstContact), or at the first command.
          lazyConnect: verifyNodes.length > 0,
          // A TLS certificate names hosts, not the addresses a DNS lookup would turn them into.
          ...(target.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
        });
  return { client, firstContact: watchFirstContact(client, verifyNodes) };
}

/**
 * `verifyNodes`: a TLS cluster's node connections report a refused certificate only as "Connection
 * is closed", so their certificates are checked here with one TLS handshake each (first answer wins).
 */
function watchFirstContact(client: RedisClient, verifyNodes: RedisNode[]): Promise<void> {
  const events = new Promise<void>((resolve, reject) => {
    // Only the first contact decides: a later error (even a certificate one) is retried like any other.
    let settled = false;
    const onError = (err: unknown) => {
      if (settled) return;
      settled = true;
      const refusal = certificateRefusal(err);
      if (!refusal) return resolve();
      client.disconnect();
      reject(refusal);
    };
    client.once('ready', () => {
      settled = true;
      resolve();
    });
    // Without a listener ioredis prints every reconnect error; reconnecting is expected behaviour here.
    client.on('error', onError);
    if (client instanceof Cluster) client.on('node error', onError);
  });
  const contact =
    verifyNodes.length === 0
      ? events
      : firstHandshake(verifyNodes).then((refusal) => {
          if (!refusal) {
            // Already connecting when a command came first: that connection is the one to keep.
            if (client.status === 'wait') client.connect().catch(() => undefined);
            return events;
          }
          client.disconnect();
          throw refusal;
        });
  // Handled here so a store nobody asks about its first contact does not raise an unhandled rejection.
  contact.catch(() => undefined);
  return contact;
}

/** The certificate refusal of the first node that completes or refuses a TLS handshake; none if none answers. */
async function firstHandshake(nodes: RedisNode[]): Promise<Error | undefined> {
  for (const node of nodes) {
    const outcome = await new Promise<'ok' | 'unreachable' | Error>((resolve) => {
      const socket = tlsConnect({
        host: node.host,
        port: node.port,
        ...(isIP(node.host) ? {} : { servername: node.host }),
        rejectUnauthorized: true,
        timeout: 10_000,
      });
      const done = (result: 'ok' | 'unreachable' | Error) => {
        socket.destroy();
        resolve(result);
      };
      socket.once('secureConnect', () => done('ok'));
      socket.once('timeout', () => done('unreachable'));
      socket.once('error', (err) => done(certificateRefusal(err) ?? 'unreachable'));
    });
    if (outcome === 'ok') return undefined;
    if (outcome instanceof Error) return outcome;
  }
  return undefined;
}

/** Node's certificate failures (self-signed, unknown issuer, expired, wrong host name). */
const CERTIFICATE_CODES = /CERT|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function certificateRefusal(err: unknown): Error | undefined {
  const e = err as { code?: unknown; message?: unknown; lastNodeError?: unknown } | undefined;
  if (e?.lastNodeError) return certificateRefusal(e.lastNodeError);
  if (typeof e?.code !== 'string' || !CERTIFICATE_CODES.test(e.code)) return undefined;
  return new Error(
    `STATE_URL: the Redis server's TLS certificate was refused (${e.code}: ${String(e.message)}). ` +
      'A managed Redis with a self-signed certificate (e.g. a Heroku Redis add-on) needs REDIS_TLS_VERIFY=false, ' +
      'which turns off certificate verification; otherwise check the host name and the server certificate.',
  );
}

/** Every key matching `pattern` on every master (a cluster spreads keys over them), deduplicated. */
export async function scanAll(client: RedisClient, pattern: string): Promise<string[]> {
  if (client instanceof Cluster && client.status !== 'ready') await client.ping(); // queued until the slots are known
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  const found = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      for (const k of batch) found.add(k);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...found];
}

/**
 * A member of a due index (a sorted set) at `dueAt`; with `ttlMs`, the index expires that long after
 * this write, in the same round trip (an index whose members may outlive their work).
 */
export async function scheduleDue(
  client: RedisClient,
  key: string,
  member: string,
  dueAt: number,
  ttlMs?: number,
): Promise<void> {
  if (ttlMs === undefined) {
    await client.zadd(key, Math.round(dueAt), member);
    return;
  }
  const replies = await client
    .pipeline()
    .zadd(key, Math.round(dueAt), member)
    .pexpire(key, Math.max(1, Math.round(ttlMs)))
    .exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (failed) throw failed;
}
