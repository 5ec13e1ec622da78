/**
 * The single-workspace app's identity: SLACK_BOT_TOKEN's workspace and bot user, learned once with
 * auth.test, and Bolt's authorize, which gives every request that token.
 */
import type { Authorize } from '@slack/bolt';
import { z } from 'zod';
import { slackErrorCode, type WebClient } from './web';

export interface BotIdentity {
  team: string;
  botUserId: string;
  botId?: string;
}

// Only the bot's own user id is essential; the team also arrives with every request.
const authTestSchema = z.object({
  team_id: z.string().nullish(),
  user_id: z.string(),
  bot_id: z.string().nullish(),
});

export class SingleWorkspace {
  private who: BotIdentity | undefined;
  private pending: Promise<BotIdentity> | undefined;

  constructor(
    private readonly client: WebClient,
    private readonly botToken: string,
  ) {}

  /** Once learned; undefined before start. */
  get known(): BotIdentity | undefined {
    return this.who;
  }

  identify(): Promise<BotIdentity> {
    this.pending ??= (async () => {
      try {
        const res = authTestSchema.parse(await this.client.auth.test());
        this.who = { team: res.team_id ?? '', botUserId: res.user_id, ...(res.bot_id ? { botId: res.bot_id } : {}) };
        return this.who;
      } catch (err) {
        this.pending = undefined;
        throw new Error(
          `Slack auth.test failed (${slackErrorCode(err) ?? (err as Error).message}): check SLACK_BOT_TOKEN`,
        );
      }
    })();
    return this.pending;
  }

  /** Bolt asks per event; the single workspace's identity is learned once. */
  readonly authorize: Authorize<boolean> = async () => {
    const id = await this.identify();
    return {
      botToken: this.botToken,
      botUserId: id.botUserId,
      ...(id.botId ? { botId: id.botId } : {}),
      teamId: id.team,
    };
  };
}
