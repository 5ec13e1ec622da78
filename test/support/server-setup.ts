/**
 * The tests' one way to set up servers: `useStarted(start)` starts what `start` builds before the
 * file's (or the describe block's) tests and closes it after them, and hands back a stand-in that
 * reads the started object once it exists:
 *
 *   const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 5 }));
 *   test('...', async () => { await e.driver.command('/ask', 'hi'); });
 *
 * A test that reads it before `beforeAll` ran (at collection time) fails loudly.
 */
export function useStarted<T extends { close(): Promise<unknown> | undefined | void }>(
  start: () => Promise<T>,
  timeoutMs?: number,
): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  }, timeoutMs);
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as T, {
    get(_target, prop) {
      if (!current) throw new Error(`read ${String(prop)} of a server that is not started (outside a test?)`);
      const value: unknown = Reflect.get(current, prop, current);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
