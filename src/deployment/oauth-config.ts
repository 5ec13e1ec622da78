/**
 * The environment of Slack's OAuth mode ("Add to Slack": many workspaces, one deployment) and of the
 * key that seals secrets in the state store; config.ts's schema uses these.
 */
import { z } from 'zod';
import { MAKE_KEY_HINT, parseEncryptionKey } from '../state/secret-box';

/** STATE_ENCRYPTION_KEY / _PREVIOUS: base64 of 32 bytes (the message names the fix). */
export const encryptionKey = (name: string) =>
  z.string().superRefine((v, ctx) => {
    try {
      parseEncryptionKey(name, v);
    } catch (err) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message.replace(`${name} `, '') });
    }
  });

const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/**
 * OAuth mode: the three OAuth variables and the signing secret, no bot token, and a key to seal the
 * workspaces' tokens with. Half a set is a mistake worth naming.
 */
export function slackOAuthProblems(
  e: Partial<Record<(typeof OAUTH_VARIABLES)[number] | 'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET', string>> & {
    STATE_ENCRYPTION_KEY?: string;
  },
  problem: (variable: string, message: string) => void,
): void {
  const set = OAUTH_VARIABLES.filter((v) => e[v]);
  if (set.length === 0) return;
  if (e.SLACK_BOT_TOKEN) {
    problem(
      set[0],
      'is set together with SLACK_BOT_TOKEN: unset SLACK_BOT_TOKEN for OAuth mode (many workspaces), or unset the SLACK_CLIENT_* variables',
    );
    return;
  }
  for (const v of OAUTH_VARIABLES) if (!e[v]) problem(v, `is not set: OAuth mode needs ${OAUTH_VARIABLES.join(', ')}`);
  if (!e.SLACK_SIGNING_SECRET)
    problem('SLACK_SIGNING_SECRET', 'is not set: OAuth mode needs it (App credentials, Signing Secret)');
  if (!e.STATE_ENCRYPTION_KEY) {
    problem(
      'STATE_ENCRYPTION_KEY',
      `is not set: OAuth mode keeps every workspace's tokens encrypted with it; ${MAKE_KEY_HINT}`,
    );
  }
}
