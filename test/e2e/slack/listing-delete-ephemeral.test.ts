/**
 * A listing deleted from its ephemeral confirmation: Slack cannot chat.update an ephemeral message,
 * so the bridge replaces it through the click's response_url: the admin sees the success, the
 * buttons are gone, and no error is shown.
 */
import { button, buttons } from '../../../fakes/slack-blocks';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { ADMIN, startSlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

describe('Slack: listing delete confirmed from an ephemeral message', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2 }));

  test('shows success in place of the confirmation and removes its buttons', async () => {
    const before = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
    const target = before.items[0]!;
    await e.driver.command('/listing', `delete id:${target.id}`, { user: ADMIN, channel: 'C0DELEPH' });
    const confirm = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === 'C0DELEPH' && buttons(m as unknown as FakeMessage).length > 0),
      'the ephemeral confirmation',
    );
    const del = button(confirm as unknown as FakeMessage, 'Delete')!;
    const ephemeralsBefore = e.fake.ephemerals.length;
    const res = await e.driver.click(
      del,
      {
        channel: 'C0DELEPH',
        messageTs: '1700000000.000100',
        ephemeral: true,
        responseUrl: e.fake.responseUrl('del-1'),
      },
      { user: ADMIN },
    );
    expect(res.status).toBe(200);

    const replaced = await waitFor(() => e.fake.responses.find((r) => r.id === 'del-1'), 'the confirmation replaced');
    expect(replaced.body.replace_original).toBe(true);
    expect(String(replaced.body.text)).toMatch(new RegExp(`Deleted 1 listing \\(id:? ?${target.id}`));
    expect(JSON.stringify(replaced.body.blocks ?? [])).not.toContain('"actions"');
    const after = await e.app.client.listListings({ chatbotId: e.service.chatbotId, pageSize: 100 });
    expect(after.items.some((l) => l.id === target.id)).toBe(false);
    // No failure was reported to the admin, and nothing tried chat.update on the ephemeral.
    expect(e.fake.ephemerals.slice(ephemeralsBefore).filter((m) => /wrong|failed|error/i.test(m.text))).toEqual([]);
    expect(e.fake.callsOf('chat.update').filter((c) => c.args.ts === '1700000000.000100')).toEqual([]);
  });
});
