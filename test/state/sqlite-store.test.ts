import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SqliteStore } from '../../src/state/sqlite-store';
import { runStoreContract } from './store-contract';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sqlite-store-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteStore (shared file, two connections)', () => {
  runStoreContract(async () => {
    const file = join(dir, 'contract', 'nested', 'state.db'); // parent directories do not exist yet
    return { open: async () => new SqliteStore(file) };
  });
});

describe('SqliteStore (:memory:)', () => {
  it('works in memory', async () => {
    const store = new SqliteStore(':memory:');
    await store.set('k', [1, 2]);
    expect(await store.get('k')).toEqual([1, 2]);
    expect((await store.push('q', 'x')).value).toBe('x');
    await store.close();
  });
});

describe('SqliteStore persistence', () => {
  it('keeps values, queues and leases across close and reopen, in WAL mode', async () => {
    const file = join(dir, 'persist.db');
    const first = new SqliteStore(file);
    await first.set('conv:1', { session: 'abc' });
    await first.set('short', 1, 60_000);
    const item = await first.push('q', { n: 1 });
    await first.acquireLease('l', 'me', 60_000);
    await first.close();
    expect(existsSync(file)).toBe(true);

    const second = new SqliteStore(file);
    expect(await second.get('conv:1')).toEqual({ session: 'abc' });
    expect(await second.get('short')).toBe(1);
    expect(await second.peek('q')).toEqual(item);
    expect((await second.leaseInfo('l'))?.owner).toBe('me');
    const next = await second.push('q', { n: 2 });
    expect(next.id > item.id).toBe(true);
    await second.close();

    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });
});

describe('SqliteStore across OS processes', () => {
  it('stays atomic when three processes compete on one file', async () => {
    const file = join(dir, 'multiproc.db');
    const rounds = 40;
    const seed = new SqliteStore(file);
    for (let i = 0; i < rounds; i++) await seed.set(`mp:claim:${i}`, { open: true });
    await seed.close();

    const labels = ['p1', 'p2', 'p3'];
    const outputs = await Promise.all(
      labels.map((label) =>
        run(
          process.execPath,
          [join(__dirname, 'sqlite-child.js'), file, String(labels.length), label, String(rounds)],
          {
            timeout: 60_000,
          },
        ),
      ),
    );
    const results = outputs.map(
      (o) =>
        JSON.parse(o.stdout.trim()) as {
          label: string;
          wonKeys: number[];
          wonClaims: number[];
          pushed: string[];
          tokens: number;
        },
    );

    const keyWins = results.flatMap((r) => r.wonKeys).sort((x, y) => x - y);
    expect(keyWins).toEqual(Array.from({ length: rounds }, (_, i) => i)); // each key won exactly once
    const claimWins = results.flatMap((r) => r.wonClaims).sort((x, y) => x - y);
    expect(claimWins).toEqual(Array.from({ length: rounds }, (_, i) => i));
    expect(results.reduce((sum, r) => sum + r.tokens, 0)).toBe(10);
    for (const r of results) expect([...r.pushed].sort()).toEqual(r.pushed);

    const check = new SqliteStore(file);
    expect(await check.length('mp:queue')).toBe(rounds * labels.length);
    const winners = await Promise.all(Array.from({ length: rounds }, (_, i) => check.get(`mp:key:${i}`)));
    winners.forEach((w, i) => expect(results.find((r) => r.label === w)?.wonKeys).toContain(i));
    await check.close();
  });
});
