/**
 * Socket Mode end to end: the app started with SLACK_BOT_TOKEN + SLACK_APP_TOKEN and no signing
 * secret gets its WebSocket URL from apps.connections.open, and every command, event and click
 * arrives as an envelope over that socket and is acked on it; nothing is served over HTTP.
 */
import { answerMessages, rootFor, waitForAnswer } from '../../support/slack-e2e';
import { startSlackSocketE2E } from '../../support/fake-slack-socket';
import { waitFor } from '../../../fakes/slack-requests';
import { button } from '../../../fakes/slack-blocks';
import { useStarted } from '../../support/server-setup';
import { editedTo, firstLineOf } from '../../support/slack-flows';

describe('Slack e2e: Socket Mode', () => {
  const e = useStarted(() => startSlackSocketE2E({ fragmentDelayMs: 5 }));

  test('connects with the app token from apps.connections.open; no HTTP endpoint for Slack', async () => {
    expect(e.socket.connected).toBe(true);
    expect(e.socket.connections).toBe(1);
    expect(e.socket.opens).toEqual([{ authorization: 'Bearer xapp-***', ok: true }]);
    const slack = e.app.surfaces.find((s) => s.surface.name === 'slack')!;
    expect(slack.isReady()).toBe(true);
    expect(slack.requestListener).toBeUndefined();
    // Even a well-formed delivery to the HTTP path finds nothing to answer it.
    const res = await e.driver.command('/ask', 'over http?', { channel: 'C0HTTP' });
    expect(res.status).toBe(404);
    const health = await fetch(`${e.app.url}/healthz`);
    expect(health.status).toBe(200);
  });

  let askRoot = '';
  const question = 'Show me homes for sale in Austin';

  test('/ask over the socket: acked within 3 s, root names the user, the thread holds the service answer', async () => {
    const envelopeId = e.socket.slashCommand('/ask', question, { user: 'U0USER1', channel: 'C0SOCKASK' });
    await e.socket.waitAck(envelopeId);
    expect(e.socket.lateAcks).toEqual([]);
    const root = await waitFor(() => rootFor(e.fake, 'C0SOCKASK', question), 'the root');
    expect(root.text).toContain('<@U0USER1>');
    expect(root.text).toContain(`> ${question}`);
    expect(root.thread_ts).toBeUndefined();
    const { answer, messages } = await waitForAnswer(e, 'C0SOCKASK', root.ts, question);
    expect(answer.length).toBeGreaterThan(0);
    expect(
      messages
        .map((m) => m.text)
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(answer.replace(/\s+/g, ''));
    expect(e.storedAnswers(question)).toHaveLength(1);
    askRoot = root.ts;
  });

  test('a thread follow-up as an events_api envelope is answered in the same thread and session', async () => {
    expect(askRoot).not.toBe('');
    const followUp = 'And homes for rent in Austin?';
    const before = answerMessages(e.fake, 'C0SOCKASK', askRoot).length;
    const followEvent = {
      type: 'message',
      channel: 'C0SOCKASK',
      channel_type: 'channel',
      user: 'U0USER1',
      text: followUp,
      ts: `${Math.floor(Date.now() / 1000)}.000123`,
      thread_ts: askRoot,
    };
    const { envelopeId, eventId } = e.socket.event(followEvent);
    await e.socket.waitAck(envelopeId);
    expect(e.socket.lateAcks).toEqual([]);
    const stored = await waitFor(() => e.storedAnswers(followUp).at(-1), 'the follow-up answer stored');
    const squeeze = (t: string): string => t.replace(/\s+/g, '');
    const later = await waitFor(() => {
      const msgs = answerMessages(e.fake, 'C0SOCKASK', askRoot).slice(before);
      return (
        msgs.length > 0 &&
        msgs.every((m) => !m.streaming) &&
        squeeze(msgs.map((m) => m.text).join('')) === squeeze(stored) &&
        msgs
      );
    }, 'the follow-up answer in the thread');
    expect(squeeze(later.map((m) => m.text).join(''))).toBe(squeeze(stored));
    const sessions = e.service.context.db
      .prepare(`SELECT DISTINCT session_id FROM messages WHERE role='user' AND content IN (?, ?)`)
      .all(question, followUp);
    expect(sessions).toHaveLength(1);

    // Slack's redelivery of the same event is acked but not answered twice; a DM sent after it is
    // answered, which gives a wrongly accepted redelivery every chance to show.
    const replay = e.socket.event(followEvent, { eventId, retryAttempt: 1 });
    await e.socket.waitAck(replay.envelopeId);
    const dmTs = `${Math.floor(Date.now() / 1000)}.000456`;
    const dm = 'Anything for rent in Denver?';
    const dmEnvelope = e.socket.event({
      type: 'message',
      channel: 'D0SOCKDM',
      channel_type: 'im',
      user: 'U0USER2',
      text: dm,
      ts: dmTs,
    });
    await e.socket.waitAck(dmEnvelope.envelopeId);
    const dmAnswer = await waitForAnswer(e, 'D0SOCKDM', dmTs, dm);
    expect(firstLineOf(dmAnswer.messages)).toMatch(/^I found \d+ homes for rent in Denver:$/);
    expect(e.storedAnswers(followUp)).toHaveLength(1);
  });

  test('an interactive envelope (listings Next) is acked and edits the same message', async () => {
    const listings = e.socket.slashCommand('/listings', '', { user: 'U0USER1', channel: 'C0SOCKLIST' });
    await e.socket.waitAck(listings);
    const msg = await waitFor(
      () => e.fake.channelMessages('C0SOCKLIST').find((m) => button(m, /Next/)),
      'the listings page',
    );
    expect(msg.text).toMatch(/page 1 of/);
    const click = e.socket.click(button(msg, /Next/)!, { channel: 'C0SOCKLIST', messageTs: msg.ts });
    await e.socket.waitAck(click);
    expect(e.socket.lateAcks).toEqual([]);
    expect((await editedTo(e.fake, 'C0SOCKLIST', msg.ts, /page 2/)).text).toMatch(/page 2 of \d+/);
    expect(e.fake.channelMessages('C0SOCKLIST')).toHaveLength(1);
    expect(button(e.fake.message('C0SOCKLIST', msg.ts)!, /Prev/)).toBeDefined();
  });

  test('when Slack asks the client to reconnect, it fetches a new URL and keeps working', async () => {
    e.socket.requestDisconnect();
    const link = () => ({ connections: e.socket.connections, connected: e.socket.connected });
    expect(await waitFor(() => e.socket.connections === 2 && link(), 'the reconnection', 15_000)).toEqual({
      connections: 2,
      connected: true,
    });
    expect(e.socket.opens.map((o) => o.ok)).toEqual([true, true]);
    const q = 'Any condos in Denver?';
    const envelopeId = e.socket.slashCommand('/ask', q, { user: 'U0USER2', channel: 'C0SOCKAGAIN' });
    await e.socket.waitAck(envelopeId);
    const root = await waitFor(() => rootFor(e.fake, 'C0SOCKAGAIN', q), 'the root after reconnecting');
    expect(root.text).toContain('<@U0USER2>');
    const { messages } = await waitForAnswer(e, 'C0SOCKAGAIN', root.ts, q);
    expect(firstLineOf(messages)).toMatch(/^I found \d+ condos in Denver:$/);
  }, 30_000);

  test('every envelope was acked once, within 3 s, and nothing else came back on the socket', () => {
    expect(e.socket.strays).toEqual([]);
    expect(e.socket.lateAcks).toEqual([]);
    expect(e.fake.rateLimited).toBe(0);
  });

  test("the app's close disconnects the socket cleanly (a normal close, no reconnect)", async () => {
    const slack = e.app.surfaces.find((s) => s.surface.name === 'slack')!;
    const closed = e.socket.nextClose();
    await e.app.close(3000);
    expect(slack.isReady()).toBe(false);
    const { code } = await closed;
    expect(code).toBe(1000);
    expect(e.socket.connected).toBe(false);
    expect(e.socket.opens).toHaveLength(2);
  });
});

describe('Slack e2e: Socket Mode survives Slack failing a reconnect', () => {
  const e = useStarted(() => startSlackSocketE2E());

  test('apps.connections.open failing while reconnecting: the app comes back once Slack does', async () => {
    // Slack's API answers 503 until told otherwise: the app cannot be connected before then.
    e.socket.failOpens(Number.MAX_SAFE_INTEGER, 503);
    e.socket.requestDisconnect();
    // One whole reconnect failed (the first try and the Web API client's retries).
    const failed = await waitFor(
      () => {
        const refused = e.socket.opens.filter((o) => !o.ok);
        return refused.length >= 3 && refused;
      },
      'the failed reconnect attempts',
      20_000,
    );
    expect(failed.slice(0, 3)).toEqual([
      { authorization: 'failed', ok: false },
      { authorization: 'failed', ok: false },
      { authorization: 'failed', ok: false },
    ]);
    expect(e.socket.connected).toBe(false);
    // Deaf to Slack means not ready: an orchestrator can see it.
    const down = await fetch(`${e.app.url}/healthz`);
    expect(down.status).toBe(503);
    e.socket.failOpens(0);
    const back = await waitFor(
      () => e.socket.connected && { connections: e.socket.connections, connected: e.socket.connected },
      'a reconnection after Slack recovered',
      25_000,
    );
    expect(back).toEqual({ connections: 2, connected: true });
    const q = 'Show me homes for sale in Austin';
    const envelopeId = e.socket.slashCommand('/ask', q, { channel: 'C0BACK' });
    await e.socket.waitAck(envelopeId);
    const root = await waitFor(() => rootFor(e.fake, 'C0BACK', q), 'the root after recovering');
    const { messages } = await waitForAnswer(e, 'C0BACK', root.ts, q);
    expect(firstLineOf(messages)).toMatch(/^I found \d+ homes for sale in Austin:$/);
  }, 60_000);
});
