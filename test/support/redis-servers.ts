/**
 * Redis servers of a test's own, as operators get them from a managed service: a TLS Redis with a
 * throwaway self-signed certificate (made by openssl), and a Redis Cluster of several masters. Each
 * runs as child processes on free ports in a temporary directory, removed again by close().
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { waitFor } from '../../fakes/wait-for';
import { freePort } from './bridge-process';

const run = promisify(execFile);

interface Certificate {
  certFile: string;
  keyFile: string;
  /** The certificate (PEM), for a client that trusts it explicitly. */
  pem: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day. */
async function throwawayCertificate(dir: string): Promise<Certificate> {
  const certFile = join(dir, 'redis.crt');
  const keyFile = join(dir, 'redis.key');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}

function tlsArgs(port: number, cert: Certificate): string[] {
  return [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    cert.certFile,
    '--tls-key-file',
    cert.keyFile,
    '--tls-ca-cert-file',
    cert.certFile,
    '--tls-auth-clients',
    'no',
  ];
}

/** Spawns redis-server (no persistence, 127.0.0.1 only) and waits until this very process answers PING. */
async function startServer(dir: string, port: number, tls: boolean, args: string[]): Promise<ChildProcess> {
  const base = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
  const child = spawn('redis-server', [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const probe = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...(tls ? { tls: { rejectUnauthorized: false } } : {}),
  });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited at start-up: ${output}`);
        try {
          if (probe.status !== 'ready') await probe.connect();
          // Ours, not another server that took the port between freePort() and the spawn.
          return (await probe.info('server')).includes(`process_id:${child.pid}`);
        } catch {
          probe.disconnect();
          return false;
        }
      },
      () => `redis-server on ${port} (${output})`,
      10_000,
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    probe.disconnect();
  }
  return child;
}

async function stopServers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}

export interface TlsRedis {
  /** rediss://127.0.0.1:<port> */
  url: string;
  certificatePem: string;
  close(): Promise<void>;
}

/** A redis-server that speaks only TLS, with a throwaway self-signed certificate. */
export async function startTlsRedis(): Promise<TlsRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-redis-'));
  const cert = await throwawayCertificate(dir);
  const port = await freePort();
  const child = await startServer(dir, port, true, tlsArgs(port, cert));
  return {
    url: `rediss://127.0.0.1:${port}`,
    certificatePem: cert.pem,
    close: async () => {
      await stopServers([child]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisClusterServers {
  /** redis+cluster://127.0.0.1:<p1>,... (rediss+cluster:// with tls) */
  url: string;
  ports: number[];
  close(): Promise<void>;
}

/** A Redis Cluster of `masters` masters and no replicas, every slot assigned, state ok on every node. */
export async function startRedisCluster(opts: { masters?: number; tls?: boolean } = {}): Promise<RedisClusterServers> {
  const masters = opts.masters ?? 3;
  const tls = opts.tls === true;
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const children: ChildProcess[] = [];
  const close = async () => {
    await stopServers(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const cert = tls ? await throwawayCertificate(dir) : undefined;
    const ports: number[] = [];
    for (let i = 0; i < masters; i++) {
      const port = await clusterPort();
      const clusterArgs = ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)];
      const portArgs = cert ? [...tlsArgs(port, cert), '--tls-cluster', 'yes'] : ['--port', String(port)];
      children.push(await startServer(dir, port, tls, [...portArgs, ...clusterArgs]));
      ports.push(port);
    }
    const tlsCli = cert ? ['--tls', '--cacert', cert.certFile] : [];
    const nodes = ports.map((p) => `127.0.0.1:${p}`);
    await run('redis-cli', [...tlsCli, '--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    await Promise.all(ports.map((port) => clusterStateOk(port, tls)));
    return { url: `${tls ? 'rediss' : 'redis'}+cluster://${nodes.join(',')}`, ports, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A free port whose cluster bus port (port + 10000, Redis's rule before --cluster-port existed in 7.0)
 * is free too, so the helper runs on the redis-server of older distributions as well.
 */
async function clusterPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (port + 10000 <= 65535 && (await portFree(port + 10000))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) for a cluster node');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Polls CLUSTER INFO (bounded) until the node reports cluster_state:ok: every slot is served. */
async function clusterStateOk(port: number, tls: boolean): Promise<void> {
  const node = new Redis(port, '127.0.0.1', { ...(tls ? { tls: { rejectUnauthorized: false } } : {}) });
  node.on('error', () => undefined);
  try {
    await waitFor(
      async () => (await node.cluster('INFO')).includes('cluster_state:ok'),
      `cluster_state:ok on ${port}`,
      20_000,
    );
  } finally {
    node.disconnect();
  }
}
