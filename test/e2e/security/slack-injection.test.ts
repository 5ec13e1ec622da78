/**
 * Untrusted text never becomes a Slack mention, broadcast or link. A question, a /handoff reason, the
 * chatbot's answer (through an OpenAI-compatible fake, so it says exactly what we want), a listing's
 * description and URL, and messages relayed both ways through a handoff all carry injections; every
 * call the bridge made to (fake) Slack is then scanned: no `<!channel>`, `<!here>`, `<!everyone>`,
 * `<!subteam^…>`, `<@U…>` (other than the bridge's own mention of the asker), `<#C…>` or `<url|label>`
 * from such text, and what people see is still word for word.
 */
import { startFakeOpenAi } from '../../support/fake-openai-server';
import { shown } from '../../../fakes/slack-blocks';
import { ADMIN, HANDOFF_CHANNEL, rootFor, startSlackE2E, waitForAnswer, type SlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { sampleListing } from '../../service/contract';
import { claimOnSlack } from '../../support/slack-claims';
import { useStarted } from '../../support/server-setup';

/** Everything a hostile text might try; U0USER2 and C0OTHER exist, evil.test is nobody's. */
const INJECTION =
  'Hi <!channel> <!here> <!everyone> <!subteam^S0TEAM|@team> <@U0USER2> <#C0OTHER|general> <https://evil.test/p|click me> & <b>';
const FORBIDDEN = [
  '<!channel',
  '<!here',
  '<!everyone',
  '<!subteam',
  '<@U0USER2',
  '<#C0OTHER',
  '<https://evil.test',
  '<https://x.test',
  '|click me>',
  '<b>',
];

/** Every string the bridge sent to Slack since `from` (texts, blocks, views, streams, ephemerals). */
function sentStrings(e: SlackE2E, from: number): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string') {
      out.push(v);
      // blocks/views may arrive JSON-encoded in a form body (a button's opaque value is not decoded:
      // Slack never parses or shows it)
      if (key !== 'value' && /^[[{]/.test(v)) {
        try {
          walk(JSON.parse(v));
        } catch {
          // not JSON: already recorded as text
        }
      }
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const c of e.fake.calls.slice(from)) walk(c.args);
  for (const m of e.fake.ephemerals) walk(m);
  return out;
}

function expectNoLiveMarkup(e: SlackE2E, from: number): void {
  const texts = sentStrings(e, from);
  for (const bad of FORBIDDEN) {
    const hit = texts.find((t) => t.includes(bad));
    expect(hit === undefined ? undefined : `${bad} in: ${hit.slice(0, 300)}`).toBeUndefined();
  }
  // The only mentions are the bridge's own (users of this test: U0USER1 asks, U0AGENT claims).
  for (const t of texts)
    for (const m of t.match(/<@[A-Z0-9]+[^>]*>/g) ?? []) expect(['<@U0USER1>', '<@U0AGENT>']).toContain(m);
}

describe('Slack: injections ping nobody and show word for word', () => {
  const answer = `Sure. ${INJECTION} [the good link](https://good.test/x) and [a bad one](https://x.test/a>b).`;
  // The chatbot answers through the fake OpenAI-compatible backend, which says `answer`.
  const e = useStarted(async () => {
    const llm = await startFakeOpenAi([answer.slice(0, 40), answer.slice(40)]);
    const started = await startSlackE2E({ fragmentDelayMs: 2, llm: { baseUrl: llm.baseUrl } });
    return {
      ...started,
      async close() {
        await started.close();
        await llm.close();
      },
    };
  });

  test('question, answer, /handoff reason and messages relayed both ways', async () => {
    const from = e.fake.calls.length;
    const question = `Homes? ${INJECTION}`;
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0INJECT' });
    const root = await waitFor(() => rootFor(e.fake, 'C0INJECT', 'Homes?'), 'the root');
    // The bridge's own mention of the asker is real; the question is shown exactly as typed.
    expect(root.text).toContain('<@U0USER1>');
    expect(shown(root.text)).toContain(`> ${question}`);
    const { messages } = await waitForAnswer(e, 'C0INJECT', root.ts, question);
    expect(e.storedAnswers(question).at(-1)).toBe(answer);
    // The good http(s) link is a link in the blocks; the one with `>` in its URL is text.
    const blockTexts = sentStrings(e, from).join('\n');
    expect(blockTexts).not.toContain('<https://x.test/a');

    await e.driver.command('/handoff', `Please help ${INJECTION}`, { user: 'U0USER1', channel: 'C0INJECT' });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => shown(m.text).includes('Please help')),
      'the ticket',
    );
    expect(ticket.text).toContain('<@U0USER1>');
    expect(shown(ticket.text)).toContain(`Please help ${INJECTION}`);
    const claimed = await claimOnSlack(e.fake, e.driver, ticket, HANDOFF_CHANNEL, 'U0AGENT');
    expect(claimed.text.split('\n')[0]).toMatch(/^Claimed by \S/);

    // Each side's message, as Slack delivers it (a literal `&` arrives as `&amp;`), shows on the other
    // side word for word and live in no way.
    const now = Math.floor(Date.now() / 1000);
    const relays = [
      { from: ['C0INJECT', root.ts, 'U0USER1'], to: [HANDOFF_CHANNEL, ticket.ts], text: `From the user ${INJECTION}` },
      { from: [HANDOFF_CHANNEL, ticket.ts, 'U0AGENT'], to: ['C0INJECT', root.ts], text: `From the agent ${INJECTION}` },
    ] as const;
    for (const [
      i,
      {
        from: [channel, threadTs, user],
        to: [toChannel, toTs],
        text,
      },
    ] of relays.entries()) {
      await e.driver.event({
        type: 'message',
        channel,
        channel_type: 'channel',
        user,
        text: text.replace(/&/g, '&amp;'),
        ts: `${now}.30000${i + 1}`,
        thread_ts: threadTs,
      });
      const relayed = await waitFor(
        () => e.fake.replies(toChannel, toTs).find((m) => shown(m.text).includes(text)),
        `"${text.slice(0, 14)}" relayed to ${toChannel}`,
      );
      expect(relayed.text).not.toMatch(/<!(channel|here|everyone)>|<@U0USER2>|<https:/);
    }
    expect(messages.length).toBeGreaterThan(0);
    expectNoLiveMarkup(e, from);
  });

  test('a listing’s description and URL: shown as text in cards, no link out of the URL', async () => {
    const hostileUrl = 'https://x.test/a> <!channel> <https://x.test/b';
    const listing = sampleListing(e.service.chatbotId, {
      City: 'Injectville',
      Description: `Nice ${INJECTION}`,
      Url: hostileUrl,
      Address: '<!here> 1 Main St',
    });
    const { SerialNumber: _serial, ...data } = listing;
    const id = e.service.context.listings.create(e.service.chatbotId, data);
    const from = e.fake.calls.length;
    const inChannel = (channel: string) => [
      ...e.fake.channelMessages(channel),
      ...e.fake.ephemerals.filter((m) => m.channel === channel),
    ];
    await e.driver.command('/listings', 'city:Injectville', { user: 'U0USER1', channel: 'C0INJLIST' });
    const page = await waitFor(
      () => inChannel('C0INJLIST').find((m) => JSON.stringify(m.blocks ?? []).includes('1 Main St')),
      'the listing page',
    );
    // The card's title shows the address word for word; the URL that tried to break out is nowhere a link
    // (a carousel card shows no URL: its Details button opens the listing).
    const cards = JSON.stringify(page.blocks);
    expect(cards).toContain('"type":"carousel"');
    expect(cards).toContain('&lt;!here&gt; 1 Main St');
    expect(cards).not.toContain('<https://x.test');
    expect(cards).not.toContain('<!channel>');
    await e.driver.command('/listing', `show id:${id}`, { user: ADMIN, channel: 'C0INJSHOW' });
    const detail = await waitFor(
      () => inChannel('C0INJSHOW').find((m) => JSON.stringify(m.blocks ?? []).includes('Nice')),
      'the listing details',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(inChannel('C0INJSHOW')).slice(0, 1500)}`);
    });
    expect(JSON.stringify(detail.blocks)).toContain(
      JSON.stringify(`Nice ${INJECTION}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')).slice(
        1,
        -1,
      ),
    );
    expectNoLiveMarkup(e, from);
  });

  test('an unsigned ssl_check is answered 200 by the gate and forwards nothing, whatever it carries', async () => {
    const from = e.fake.calls.length;
    const res = await e.driver.form(
      {
        ssl_check: '1',
        token: 'x',
        command: '/ask',
        text: 'smuggled question',
        user_id: 'U0USER1',
        channel_id: 'C0SSL',
        team_id: e.fake.team,
      },
      { signature: '' },
    );
    expect(res.status).toBe(200);
    await e.driver.command('/ask', 'help', { user: 'U0USER1', channel: 'C0SSLBARRIER' });
    const barrier = await waitFor(() => e.fake.ephemerals.find((m) => m.channel === 'C0SSLBARRIER'), 'the barrier');
    expect(barrier.text).toMatch(/\/ask/);
    expect(e.fake.calls.slice(from).filter((c) => JSON.stringify(c.args).includes('smuggled'))).toEqual([]);
    expect(e.storedAnswers('smuggled question')).toEqual([]);
  });
});
