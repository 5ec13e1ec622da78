/**
 * A queue item whose conversation lives on a surface that is no longer configured (Discord's token
 * removed, say) can never be answered: it is dropped with one log line, not retried on every sweep.
 */
import pino from 'pino';
import { conversationIdOf, convKeys, infraKeys, toJson } from '../../../src/core/conversations/model';
import { PENDING_INDEX } from '../../../src/core/conversations/worker';
import { convStore } from '../../support/conv-records';
import type { Place } from '../../../src/core/surface';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

const lines: Array<{ level: number; msg: string }> = [];
const log = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s)) });

describe('conversations: an item for a surface that is not configured', () => {
  // The harness runs only its test surface: 'discord' is not configured.
  const h = useStarted(() => startCoreHarness({ start: false, handoffOn: 'same', log }));

  it('is dropped with one warning, and a later sweep finds nothing left to retry', async () => {
    const place: Place = { surface: 'discord', workspace: 'G-gone', channel: 'C-gone', thread: 'T-gone' };
    const convId = conversationIdOf(place);
    const view = convStore(h.store, place);
    await view.set(convKeys.conversation(convId), toJson({ id: convId, place, createdAt: 1, asker: h.users.alice }));
    await view.push(
      convKeys.queue(convId),
      toJson({ kind: 'message', msgId: 'm-gone', actor: h.users.alice, text: 'hello?', attachments: [] }),
    );
    await h.store.set(infraKeys.pending(convId), toJson(view.tenant));
    await h.store.schedule(PENDING_INDEX, convId, 0);

    await h.bridge.conversations.sweep();
    await h.bridge.conversations.idle();
    expect(await view.length(convKeys.queue(convId))).toBe(0);
    expect(await h.store.get(infraKeys.pending(convId))).toBeUndefined();
    const dropped = lines.filter((l) => /surface is not configured/.test(l.msg));
    expect(dropped).toHaveLength(1);

    await h.bridge.conversations.sweep();
    await h.bridge.conversations.idle();
    expect(lines.filter((l) => /surface is not configured/.test(l.msg))).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
