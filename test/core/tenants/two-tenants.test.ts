/**
 * Two tenants of one surface in one bridge (two servers, two workspaces): each one's queue and
 * handoff figures hold its own tickets only; a tenant whose handoff channel is another's is refused,
 * and nothing of it reaches that channel; its own channel (the office record) takes its tickets.
 */
import { handoffFigures } from '../../../src/core/handoff/figures';
import { Handoffs } from '../../../src/core/handoff/handoffs';
import { TICKETS_INDEXED_KEY } from '../../../src/core/handoff/tickets';
import { convKeys, legacyKeys, toJson } from '../../../src/core/conversations/model';
import { settleOldLayout, TENANT_PARTS_MARK } from '../../../src/state/old-layout';
import { tenantStore } from '../../../src/state/tenant-store';
import type { Place } from '../../../src/core/surface';
import { saveOffice } from '../../../src/core/tenants/offices';
import { requestTenant, tenantOf } from '../../../src/core/tenants/tenant';
import { waitFor } from '../../../fakes/wait-for';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

describe('two tenants in one bridge', () => {
  const h = useStarted(() => startCoreHarness());
  const other: Place = { surface: 'shell', workspace: 'W2', channel: 'C-general-2' };
  const otherHandoff: Place = { surface: 'shell', workspace: 'W2', channel: 'C-handoff-2' };

  /** `/ask`, then `/handoff` in the thread it opened; the handoff's reply. */
  async function askThenHandoff(place: Place, question: string): Promise<string[]> {
    await h.bridge.command(h.invocation(h.users.alice, place), 'ask', question);
    const thread = h.surface.calls
      .filter((c) => c.op === 'startThread' && c.place?.workspace === place.workspace)
      .at(-1)!.place!;
    await h.bridge.conversations.idle();
    const inv = h.invocation(h.users.alice, thread);
    await h.bridge.command(inv, 'handoff', 'a viewing');
    return inv.texts();
  }

  const postsIn = (channel: Place) =>
    h.surface.calls.filter(
      (c) => c.op === 'post' && c.place?.workspace === channel.workspace && c.place.channel === channel.channel,
    );

  it('W2 is refused while the handoff channel is W1’s; with its own channel each sees only its own tickets', async () => {
    expect(await askThenHandoff(h.channel, 'Homes in Austin?')).toEqual([
      'A human agent has been asked to join your conversation thread.',
    ]);
    await waitFor(() => postsIn(h.handoffChannel).length > 0 || undefined, 'W1’s ticket in W1’s channel');

    const refused = await askThenHandoff(other, 'Condos in Denver?');
    expect(refused[0]).toMatch(/no handoff channel of its own/);
    await h.bridge.handoffs.drain();
    const w1Posts = postsIn(h.handoffChannel).map((c) => JSON.stringify(c.msg));
    expect(w1Posts.some((t) => t.includes('Condos in Denver?'))).toBe(false);

    await saveOffice(h.ctx, tenantOf(other), { handoffChannel: otherHandoff.channel });
    expect(await askThenHandoff(other, 'Lofts in Boston?')).toEqual([
      'A human agent has been asked to join your conversation thread.',
    ]);
    await waitFor(() => postsIn(otherHandoff).length > 0 || undefined, 'W2’s ticket in W2’s own channel');
    expect(postsIn(h.handoffChannel).some((c) => JSON.stringify(c.msg).includes('Lofts in Boston?'))).toBe(false);

    const queueOf = async (place: Place) => (await h.bridge.handoffs.queue(tenantOf(place))).map((t) => t.reason);
    expect(await queueOf(h.channel)).toHaveLength(1);
    expect(await queueOf(other)).toHaveLength(1);
    const w1 = (await h.bridge.handoffs.queue(tenantOf(h.channel)))[0]!;
    const w2 = (await h.bridge.handoffs.queue(tenantOf(other)))[0]!;
    expect(w1.userPlace.workspace).toBe(h.channel.workspace);
    expect(w2.userPlace.workspace).toBe('W2');

    const day = new Date(h.ctx.now()).toISOString().slice(0, 10);
    const range = { from: day, to: day };
    expect((await handoffFigures(h.ctx, tenantOf(h.channel), range)).opened).toBe(1);
    expect((await handoffFigures(h.ctx, tenantOf(other), range)).opened).toBe(1);
  });

  it('a ticket from before the tenants’ indexes joins its tenant’s queue when a bridge starts', async () => {
    const legacy = {
      id: 'legacy-ticket',
      convId: 'legacy-conv',
      status: 'open',
      user: h.users.bob,
      userPlace: { ...other, thread: '42' },
      reason: 'from before the upgrade',
      createdAt: h.ctx.now(),
    };
    await h.store.set('ticket:legacy-ticket', toJson(legacy));
    await h.store.set('ticketopen:legacy-ticket', 1);
    // A store an older bridge wrote has no mark that its tickets were indexed (this test's bridge set it).
    await h.store.delete(TICKETS_INDEXED_KEY);
    const reasons = async (handoffs: Handoffs, place: Place) =>
      (await handoffs.queue(tenantOf(place))).map((t) => t.reason);
    const started = new Handoffs(h.ctx);
    expect(await reasons(started, other)).not.toContain('from before the upgrade');
    await started.drain();
    expect(await reasons(started, other)).toContain('from before the upgrade');
    expect(await reasons(started, h.channel)).not.toContain('from before the upgrade');
  });

  it('the recent conversation lives in the workspace’s part of the store; one kept before is still found', async () => {
    await h.bridge.command(h.invocation(h.users.bob, other), 'ask', 'Ranches in Texas?');
    await h.bridge.conversations.idle();
    const view = tenantStore(h.store, tenantOf(other));
    const convId = await view.get<string>(convKeys.recent(other, h.users.bob.id));
    expect(typeof convId).toBe('string');
    expect(await h.store.get(legacyKeys.recent(other, h.users.bob.id))).toBeUndefined();
    // As an older bridge kept it: the old key only, found by the start after the upgrade (no mark
    // that the old layout is gone: the store holds one of its records).
    await view.delete(convKeys.recent(other, h.users.bob.id));
    await h.store.set(legacyKeys.recent(other, h.users.bob.id), convId!);
    await h.store.delete(TENANT_PARTS_MARK);
    expect(await settleOldLayout(h.store, Date.now())).toBe(false);
    expect(
      (await h.bridge.conversations.recentFor({ tenant: requestTenant(other), place: other }, h.users.bob.id))?.id,
    ).toBe(convId);
  });
});
