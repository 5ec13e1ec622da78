/**
 * The surface a tenant's work uses (core/tenants/left-port.ts): once the tenant has left, no call
 * goes out: one made after is refused at once, and one made before that still waits for the
 * platform's budget is refused when it would go out.
 */
import type { Place } from '../../../src/core/surface';
import { leftGatedPort } from '../../../src/core/tenants/left-port';
import { TestSurface } from '../../support/test-surface';

const place: Place = { surface: 'shell', workspace: 'W', channel: 'C', thread: 'T1' };

describe('leftGatedPort', () => {
  let surface: TestSurface;
  afterEach(async () => {
    await surface.close();
  });

  it('passes calls through until the tenant leaves, then refuses them, a call waiting for budget too', async () => {
    // One post per window: the second waits for the next window.
    surface = new TestSurface({ budget: { post: { limit: 1, windowMs: 400 } } });
    const left = new AbortController();
    const port = leftGatedPort(surface, left.signal);
    const first = await port.post(place, { text: 'before' });
    await port.edit(first, { text: 'before, edited' });
    const waiting = port.post(place, { text: 'queued before the leaving' });
    left.abort();
    await expect(waiting).rejects.toThrow('the workspace has removed the app');
    await expect(port.post(place, { text: 'after' })).rejects.toThrow('the workspace has removed the app');
    await expect(port.edit(first, { text: 'after' })).rejects.toThrow('the workspace has removed the app');
    // The status line is cosmetic: skipped without a word.
    await expect(port.status.setStatus(place, 'is thinking…')).resolves.toBeUndefined();
    expect(surface.calls.map((c) => [c.op, c.msg?.text])).toEqual([
      ['post', 'before'],
      ['edit', 'before, edited'],
    ]);
  });

  it('refuses a native stream’s appends and stop once the tenant has left', async () => {
    surface = new TestSurface({ native: { ttlMs: 60_000 } });
    const left = new AbortController();
    const port = leftGatedPort(surface, left.signal);
    const stream = await port.streaming!.startNativeStream(place, { text: 'Hello', typing: true });
    expect(stream).toBeDefined();
    await stream!.append(' there');
    left.abort();
    await expect(stream!.append(' again')).rejects.toThrow('the workspace has removed the app');
    await expect(stream!.stop({ text: 'Hello there.' })).rejects.toThrow('the workspace has removed the app');
    expect(surface.calls.map((c) => c.op)).toEqual(['nativeStart', 'append']);
  });
});
