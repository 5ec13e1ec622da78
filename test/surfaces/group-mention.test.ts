/**
 * HANDOFF_ESCALATE's mention, the only group mention the bridge builds: a Slack user group or user,
 * a Discord role listed in allowed_mentions.roles. A group mention typed by a user pings nobody.
 */
import { groupMentionToken, mentionToken } from '../../src/surfaces/mention-token';
import { renderMessage, sendableMentions } from '../../src/surfaces/discord/render';
import { slackText } from '../../src/surfaces/slack/safe-text';

const idOf = async (b: { action: string; value: string }) => `${b.action}:${b.value}`;

it('Slack: a user group and a user become real mentions; typed ones stay text', () => {
  const text = slackText(`${groupMentionToken('S0ESC')} ${mentionToken('U0LEAD')} <!subteam^S0EVIL> <!here>`);
  expect(text).toBe('<!subteam^S0ESC> <@U0LEAD> &lt;!subteam^S0EVIL&gt; &lt;!here&gt;');
});

it('Discord: a role becomes <@&id> and only that role is allowed to ping', async () => {
  const rendered = await renderMessage(
    { text: `${groupMentionToken('112233')} missed; typed: <@&999> @everyone` },
    idOf,
  );
  expect(rendered.body.content).toMatch(/^<@&112233> missed; typed: /);
  expect(sendableMentions(rendered.body)).toEqual({ parse: [], users: [], roles: ['112233'] });
  const plain = await renderMessage({ text: `${mentionToken('42')} hello` }, idOf);
  expect(sendableMentions(plain.body)).toEqual({ parse: [], users: ['42'] });
});
