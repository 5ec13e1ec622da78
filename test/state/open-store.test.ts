import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/state/open-store';
import { RedisStore } from '../../src/state/redis-store';
import { SqliteStore } from '../../src/state/sqlite-store';
import { instanceId } from '../../src/state/instance-id';

const dir = mkdtempSync(join(tmpdir(), 'open-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openStore', () => {
  it('opens SQLite for sqlite:<path>, creating the directory', async () => {
    const file = join(dir, 'data', 'bridge.db');
    const store = await openStore(`sqlite:${file}`);
    expect(store).toBeInstanceOf(SqliteStore);
    await store.set('k', 'v');
    expect(existsSync(file)).toBe(true);
    await store.close();
    const mem = await openStore('sqlite::memory:');
    expect(await mem.get('k')).toBeUndefined();
    await mem.close();
  });

  it('opens Redis for redis:// URLs', async () => {
    const store = await openStore('redis://127.0.0.1:6379/9');
    expect(store).toBeInstanceOf(RedisStore);
    expect(await store.get(`open-store-test-absent-${Date.now()}`)).toBeUndefined();
    await store.close();
  });

  it.each([
    'postgres://u:secret@h/db',
    'sqlite:',
    './bridge.db',
    'redis://127.0.0.1:6379/notanumber',
    '',
    'redis+cluster://u:secret@',
    'redis+cluster://u:secret@a:7000,,b:7000',
    'rediss+cluster://u:secret@a:7000/2',
  ])('rejects %j naming both accepted forms without echoing it', async (url) => {
    const err = await openStore(url).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('sqlite:<path>');
    expect(err!.message).toContain('redis://');
    expect(err!.message).toContain('redis+cluster://');
    expect(err!.message).toMatch(/^STATE_URL /);
    expect(err!.message).not.toContain('secret');
  });
});

describe('instanceId', () => {
  it('is stable within a process and not the host name', () => {
    expect(instanceId()).toBe(instanceId());
    expect(instanceId()).toContain(String(process.pid));
    expect(instanceId()).not.toBe(require('node:os').hostname());
  });

  it('differs between processes and honours INSTANCE_ID', () => {
    const script = `const ts=require('typescript'),fs=require('fs');
require.extensions['.ts']=(m,f)=>m._compile(ts.transpileModule(fs.readFileSync(f,'utf8'),{compilerOptions:{module:1}}).outputText,f);
process.stdout.write(require(${JSON.stringify(join(__dirname, '../../src/state/instance-id.ts'))}).instanceId());`;
    const runChild = (env: NodeJS.ProcessEnv): string =>
      spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }).stdout;
    const { INSTANCE_ID: _ignored, ...base } = process.env;
    const one = runChild(base);
    const two = runChild(base);
    expect(one).not.toBe('');
    expect(one).not.toBe(two);
    expect(runChild({ ...base, INSTANCE_ID: 'web-3' })).toBe('web-3');
  });
});
