/**
 * The applied-settings record's retention is restarted (re-written) at most hourly when it is read;
 * a re-write that failed is not counted as done, so the next read tries it again.
 */
import { appliedSettingsKey, readAppliedSettings } from '../../../src/core/settings/applied';
import type { StateStore } from '../../../src/state/store';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

describe('applied settings: the retention refresh', () => {
  const h = useStarted(() => startCoreHarness({ start: false }));

  it('a failed re-write is tried again on the next read, and the read still answers', async () => {
    const chatbotId = `applied-${process.pid}`;
    await h.store.set(appliedSettingsKey(chatbotId), { TalkToHumanResponseMessage: 'Right with you.' });
    let failing = true;
    const tries: boolean[] = [];
    // The real store, with its compare-and-set failing while `failing` is set (as a store outage would).
    const store = new Proxy(h.store as StateStore, {
      get(target, prop, receiver) {
        if (prop === 'compareAndSet')
          return (...args: Parameters<StateStore['compareAndSet']>) => {
            tries.push(failing);
            if (failing) return Promise.reject(new Error('store unavailable'));
            return target.compareAndSet(...args);
          };
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const now = 10 * 60 * 60 * 1000;
    const ctx = { ...h.ctx, store, now: () => now, chatbot: { kind: 'operator' as const, chatbotId } };

    expect(await readAppliedSettings(ctx, chatbotId)).toEqual({ TalkToHumanResponseMessage: 'Right with you.' });
    expect(tries).toEqual([true]);
    failing = false;
    await readAppliedSettings(ctx, chatbotId);
    expect(tries).toEqual([true, false]);
    // Done now: within the hour it is not written again.
    await readAppliedSettings(ctx, chatbotId);
    expect(tries).toEqual([true, false]);
  });
});
