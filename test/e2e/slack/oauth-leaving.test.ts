/**
 * A workspace leaves while answers stream (OAuth mode, two workspaces on one bridge): its answer stops
 * at once (the service stream closed, no Web API call after the leaving was handled, nothing marked
 * interrupted), the other workspace's answer completes exact, and a re-install answers normally.
 * The service is the real local one behind a proxy that holds each scripted answer mid-way.
 */
import { shown } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { heldAnswer, onChannel } from '../../support/held-answer';
import { useStarted } from '../../support/server-setup';
import { answerMessages, rootFor, waitForAnswer } from '../../support/slack-e2e';
import { install, startOAuthE2E } from '../../support/slack-oauth';
import { sameAnswer } from '../../../fakes/slack-blocks';
import { behindServiceProxy } from '../faults/service-proxy';

describe('Slack OAuth e2e: a workspace leaves while its answer streams', () => {
  const logLines: string[] = [];
  const s = useStarted(() => behindServiceProxy((url) => startOAuthE2E({ logLines, env: { CHATBOT_API_URL: url } })));

  test('app_uninstalled stops the workspace’s answer at once; the other workspace’s completes exact; a re-install answers', async () => {
    const { e, proxy } = s;
    e.fake.workspaces.addChannels('T0LEFT', 'C0LEFT');
    e.fake.workspaces.addChannels('T0STAY', 'C0STAY');
    const left = await install(e, { team: 'T0LEFT', teamName: 'Leaving office', user: 'U0USER1' });
    const stay = await install(e, { team: 'T0STAY', teamName: 'Staying office', user: 'U0USER2' });
    const a = heldAnswer(
      ['Here are three lofts in Boston. ', 'The first one is on Beacon Street. ', 'All done.'],
      9001,
    );
    const b = heldAnswer(['Denver has two condos for sale. ', 'One is downtown, ', 'one in Highlands.'], 9002);
    proxy.scriptAsk(a.handler, b.handler);

    // Both answers in flight: each has shown its first words and waits for the rest.
    await left.driver.command('/ask', 'Lofts in Boston?', { user: 'U0USER1', channel: 'C0LEFT' });
    const rootA = await waitFor(
      () => rootFor(e.fake, 'C0LEFT', 'Lofts in Boston?'),
      'the root in the leaving workspace',
    );
    await waitFor(() => a.started() || undefined, 'the leaving workspace’s answer streaming');
    await stay.driver.command('/ask', 'Condos in Denver?', { user: 'U0USER2', channel: 'C0STAY' });
    const rootB = await waitFor(
      () => rootFor(e.fake, 'C0STAY', 'Condos in Denver?'),
      'the root in the staying workspace',
    );
    await waitFor(() => b.started() || undefined, 'the staying workspace’s answer streaming');
    // The leaving workspace's answer shows all it can of its first part (a live stream shows whole
    // words up to a settled cut): it has nothing more to send until more text comes.
    await waitFor(
      () => answerMessages(e.fake, 'C0LEFT', rootA.ts).some((m) => shown(m.text).includes('three lofts in')),
      'the first words of the leaving workspace’s answer shown',
    );
    // Both answers recorded in flight (what crash recovery would mark if nothing deleted them).
    await waitFor(async () => (await e.app.store.keys('inflight:')).length === 2, 'both answers in flight');

    // Slack revokes the token and tells the app.
    const uninstalledAt = e.fake.calls.length;
    e.fake.workspaces.revoke('T0LEFT');
    expect((await left.driver.event({ type: 'app_uninstalled' })).status).toBe(200);
    const leftLine = (l: string): boolean => l.includes('"tenant left: slack T0LEFT: stopped');
    const line = await waitFor(() => logLines.find(leftLine), 'the leaving handled and logged');
    expect(line).toMatch(/stopped 1 answer, deleted \d+ records/);
    // The bridge closed the answer's service stream: it reads no more of it.
    await waitFor(() => a.closedEarly() || undefined, 'the leaving workspace’s service stream closed');

    // Both answers may go on now: only the staying workspace's does, to the last word.
    a.release();
    b.release();
    await waitFor(() => {
      const msgs = answerMessages(e.fake, 'C0STAY', rootB.ts);
      return msgs.length > 0 && msgs.every((m) => !m.streaming) && sameAnswer(msgs, b.text) ? msgs : undefined;
    }, 'the staying workspace’s answer, complete');
    await e.app.bridge.conversations.idle();
    // From the uninstall on: not one Web API call about the leaving workspace's thread (no append,
    // stop, update, status, nor an "interrupted" mark with Retry), while it was stopped or after.
    expect(e.fake.calls.slice(uninstalledAt).filter(onChannel('C0LEFT'))).toEqual([]);
    const leftShows = answerMessages(e.fake, 'C0LEFT', rootA.ts)
      .map((m) => `${m.text} ${JSON.stringify(m.blocks)}`)
      .join('\n');
    expect(leftShows).not.toMatch(/interrupted|Retry|Beacon Street/);
    // Nothing left for crash recovery to mark later: the only answer record was the finished one's.
    expect(await e.app.store.keys('inflight:')).toEqual([]);
    const stayShows = answerMessages(e.fake, 'C0STAY', rootB.ts).map((m) => JSON.stringify(m.blocks));
    expect(stayShows.join('\n')).not.toMatch(/interrupted/);
    expect(logLines.filter(leftLine)).toHaveLength(1);

    // A re-install starts clean: a new question in the workspace is answered normally.
    const again = await install(e, { team: 'T0LEFT', teamName: 'Leaving office', user: 'U0USER1' });
    await again.driver.command('/ask', 'Houses for sale in Boston?', { user: 'U0USER1', channel: 'C0LEFT' });
    const rootAgain = await waitFor(
      () => rootFor(e.fake, 'C0LEFT', 'Houses for sale in Boston?'),
      'the root after the re-install',
    );
    const { messages } = await waitForAnswer(e, 'C0LEFT', rootAgain.ts, 'Houses for sale in Boston?');
    for (const m of messages) expect(m.streaming ?? false).toBe(false);
  }, 60_000);
});
