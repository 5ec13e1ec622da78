/**
 * The installer's first-steps DM after "Add to Slack": sent as the new workspace's bot, through the
 * port (its payload built and its budget spent like every other message).
 */
import type { SlackPort } from './port';
import type { AnyInstallation } from './oauth/installations';

export const WELCOME_TEXT = [
  'Thanks for installing the chatbot bridge! First steps:',
  '1. Run `/chatbot connect` to connect your chatbot and choose the handoff channel.',
  '2. Invite me to that handoff channel (`/invite @chatbot-bridge`): handoff tickets are posted there.',
  '3. Type `/help` to see every command.',
].join('\n');

export async function welcomeInstaller(port: SlackPort, inst: AnyInstallation): Promise<void> {
  const team = inst.team?.id ?? inst.enterprise?.id;
  if (!team || !inst.user.id) return;
  await port.post({ surface: 'slack', workspace: team, channel: inst.user.id }, { text: WELCOME_TEXT, markdown: true });
}
