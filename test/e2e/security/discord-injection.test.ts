/**
 * Discord: nothing the bridge creates or edits pings anyone it did not mean to. A question, the
 * chatbot's answer (through an OpenAI-compatible fake) and relayed messages carry `@everyone`,
 * `@here` and `<@id>` of another member; the user's display name carries Slack markup and is shown
 * in a Slack ticket. Every recorded Discord create or edit (channel messages, interaction replies,
 * follow-ups, webhook edits) carries `allowed_mentions.parse: []`, and the Slack ticket pings nobody.
 */
import { startFakeOpenAi } from '../../support/fake-openai-server';
import { ask, botMessagesIn, handoffIn } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';
import { button, shown } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/slack-requests';
import { SLACK_HANDOFF, startDiscordToSlack } from '../../support/cross-surface';
import { claimOnSlack } from '../../support/slack-claims';

interface Body {
  content?: string;
  allowed_mentions?: { parse?: unknown[]; users?: string[] };
  data?: Body;
  type?: number;
}

describe('Discord: allowed_mentions parse [] everywhere; a display name in a Slack ticket pings nobody', () => {
  const answerText = (victimId: string) =>
    `Answer for you @everyone @here <@${victimId}> <@&123456789012345678> & friends.`;

  const x = useStarted(async () => {
    const llm = await startFakeOpenAi(['placeholder']);
    // Agent Smith is a member of the Slack handoff channel (an agent: conversations.members).
    const started = await startDiscordToSlack({
      users: { U0AGENT: 'Agent Smith' },
      members: ['U0AGENT'],
      llm: { baseUrl: llm.baseUrl },
    });
    const mallory = started.e.fake.addMember('<!channel> Mallory <@U0AGENT> <https://evil.test|x>');
    const victim = started.e.fake.addMember('victim');
    const answer = answerText(victim.user.id);
    llm.reply = { chunks: [answer.slice(0, 20), answer.slice(20)] };
    return {
      ...started,
      mallory,
      victim,
      async close() {
        await started.close();
        await llm.close();
      },
    };
  });

  test('answers, relays and the ticket: every create/edit has parse [], the Slack ticket shows the name as text', async () => {
    const { e, slack, driver, mallory, victim } = x;
    const question = `Homes please @everyone <@${victim.user.id}>`;
    const { threadId } = await ask(e, question, mallory);
    const answer = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes('& friends.')),
      'the answer',
      20_000,
      e.fake.changes,
    );
    // Shown word for word: what keeps it from pinging anyone is allowed_mentions (checked below).
    expect(answer.content).toContain(answerText(victim.user.id));

    handoffIn(e, threadId, 'Ping <!here> please', mallory);
    const ticket = await waitFor(
      () => slack.channelMessages(SLACK_HANDOFF).find((m) => button(m, 'Claim')),
      'the ticket on Slack',
    );
    // The Discord display name is shown word for word, and forms no Slack mention, broadcast or link.
    expect(shown(ticket.text)).toContain('<!channel> Mallory <@U0AGENT> <https://evil.test|x>');
    expect(shown(ticket.text)).toContain('Ping <!here> please');
    for (const bad of ['<!channel', '<!here', '<@U0AGENT', '<https://evil.test'])
      expect(JSON.stringify(slack.calls.map((c) => c.args))).not.toContain(bad);

    const claimed = await claimOnSlack(slack, driver, ticket, SLACK_HANDOFF, 'U0AGENT');
    expect(claimed.text.split('\n')[0]).toMatch(/^Claimed by \S/);
    const agentText = `Hello @everyone <@${victim.user.id}>`;
    await driver.event({
      type: 'message',
      channel: SLACK_HANDOFF,
      channel_type: 'channel',
      user: 'U0AGENT',
      text: agentText,
      ts: `${Math.floor(Date.now() / 1000)}.400001`,
      thread_ts: ticket.ts,
    });
    const relayed = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes(agentText)),
      'the agent message on Discord',
      10_000,
      e.fake.changes,
    );
    expect(relayed.content).toContain(agentText);

    // Every message the bridge created or edited on Discord, whatever the route.
    const creates = e.fake.calls.filter(
      (c) =>
        (c.method === 'POST' || c.method === 'PATCH') && /\/messages(\/[^/]+)?$|\/callback$|\/webhooks\//.test(c.path),
    );
    expect(creates.length).toBeGreaterThan(3);
    for (const c of creates) {
      const body = c.body as Body;
      // Interaction callbacks carry the message in `data` (types 4 and 7); a deferral or a modal has none.
      const msg = c.path.endsWith('/callback') ? body.data : body;
      if (c.path.endsWith('/callback') && (body.type === 5 || body.type === 6 || body.type === 9)) continue;
      expect({ path: c.path, parse: msg?.allowed_mentions?.parse }).toEqual({ path: c.path, parse: [] });
      // The only users a message may ping are those the bridge itself mentioned: never the victim.
      expect(msg?.allowed_mentions?.users ?? []).not.toContain(victim.user.id);
    }
  });
});
