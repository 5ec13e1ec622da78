/**
 * Two real-estate offices on one OAuth deployment, as the per-office suites start them: workspaces
 * T0XXX and T0YYY installed through "Add to Slack" by their owners, each with its own chatbot
 * connected through the /chatbot connect form and its own handoff channel (C0XDESK, C0YDESK) whose
 * members are its agents.
 */
import type { SlackDriver } from '../../fakes/slack-requests';
import { connectByForm } from './slack-flows';
import { install, type OAuthE2E } from './slack-oauth';

export const OWNER_X = 'U0OWNERX';
export const OWNER_Y = 'U0OWNERY';

/** Installs and connects both offices; `agents` are the members of each office's handoff channel. */
export async function twoConnectedOffices(
  e: OAuthE2E,
  agents: { x: string[]; y: string[] },
): Promise<{ x: SlackDriver; y: SlackDriver }> {
  e.fake.workspaces.addChannels('T0XXX', 'C0XGEN', 'C0XDESK');
  e.fake.workspaces.addChannels('T0YYY', 'C0YGEN', 'C0YDESK');
  e.fake.workspaceOwners.add(OWNER_X);
  e.fake.workspaceOwners.add(OWNER_Y);
  e.fake.channelMembers.C0XDESK = agents.x;
  e.fake.channelMembers.C0YDESK = agents.y;
  const x = (await install(e, { team: 'T0XXX', teamName: 'Office X', user: OWNER_X })).driver;
  const y = (await install(e, { team: 'T0YYY', teamName: 'Office Y', user: OWNER_Y })).driver;
  const keys = { secretKey: e.service.credentials.secretKey, sessionKey: e.service.credentials.sessionKey };
  for (const [driver, owner, general, desk, name] of [
    [x, OWNER_X, 'C0XGEN', 'C0XDESK', 'Chatbot A'],
    [y, OWNER_Y, 'C0YGEN', 'C0YDESK', 'Chatbot B'],
  ] as const) {
    const bot = await e.app.client.v1.createChatbot({ name });
    const values = { chatbotId: bot.id, ...keys, apiKey: bot.apiKey!, handoffChannel: desk };
    await connectByForm(e.fake, driver, owner, general, values);
  }
  return { x, y };
}
