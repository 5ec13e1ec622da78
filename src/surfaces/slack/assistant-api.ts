/**
 * Slack's assistant.threads.* methods (the assistant pane): status, suggested prompts, title.
 *
 * Each call goes through the surface's gateway, which spends its budget (setStatus: about 60 a minute
 * per DM, never waited for; setSuggestedPrompts and setTitle: Tier 3, about 50 a minute per
 * workspace). A workspace without
 * the feature (`unknown_method`, `not_allowed_token_type`, `missing_scope`, or a Web API without the
 * method) is said once in the log, and the bridge carries on without that method.
 */
import type { Logger } from 'pino';
import type { Place } from '../../core/surface';
import type { SlackGateway } from './gateway';
import { isMissingMethod, slackErrorCode } from './web';
import { escapeAll } from './safe-text';

/** Slack's cap on a thread title we keep to (the contract: at most 60 characters). */
export const MAX_TITLE = 60;
/** The rotating lines Slack shows under the status while it waits. */
export const LOADING_MESSAGES = ['Reading your question…', 'Looking through the listings…', 'Writing the answer…'];

const UNSUPPORTED = new Set([
  'unknown_method',
  'not_allowed_token_type',
  'missing_scope',
  'method_deprecated',
  'feature_not_enabled',
  'not_supported',
]);

type Method = 'assistant.threads.setStatus' | 'assistant.threads.setSuggestedPrompts' | 'assistant.threads.setTitle';

export interface SuggestedPrompt {
  title: string;
  message: string;
}

/**
 * What each workspace was found not to offer is kept here, in this process: it is learnt again from
 * Slack's first refusal (nothing another instance must agree on: each skips a call it would see
 * refused), it is keyed by workspace (one workspace without the scope does not mute another), it
 * names no user or channel, and `forget` drops a workspace's when it leaves (a re-install may grant
 * what the old one lacked).
 */
export class AssistantThreads {
  /** Per workspace, the methods it does not offer (`<team> <method>`): not called there again. */
  private readonly unsupported = new Set<string>();
  /** Workspaces that refused a status in a channel thread (outside the assistant pane): DMs only there. */
  private readonly noChannelStatus = new Set<string>();

  constructor(
    /** The surface's one outbound path (the port's gateway, known once the port exists). */
    private readonly deps: { gateway: () => SlackGateway; log: Logger; team: () => string },
  ) {}

  /** Non-empty: the status with rotating loading messages; '' clears it. Never throws. */
  async setStatus(place: Place, status: string): Promise<void> {
    if (!place.thread) return;
    const inChannel = !place.channel.startsWith('D');
    if (inChannel && this.noChannelStatus.has(this.team(place))) return;
    const args = {
      channel_id: place.channel,
      thread_ts: place.thread,
      status,
      ...(status ? { loading_messages: LOADING_MESSAGES } : {}),
    };
    // Cosmetic: skipped without budget (the gateway says), except a clear.
    await this.run(place, 'assistant.threads.setStatus', (gateway) =>
      gateway.assistantStatus(place, args, status === ''),
    ).catch((err: unknown) => {
      const code = slackErrorCode(err);
      if (inChannel && code && !this.noChannelStatus.has(this.team(place))) {
        // Slack may keep the status to assistant threads: stop trying it in channel threads (said once).
        this.noChannelStatus.add(this.team(place));
        this.deps.log.info(
          { code },
          'slack: no assistant status in channel threads here; showing it in assistant threads only',
        );
        return;
      }
      this.deps.log.debug({ code }, 'slack: assistant status not set');
    });
  }

  async setSuggestedPrompts(place: Place, prompts: SuggestedPrompt[], title?: string): Promise<void> {
    // Their words may be a listing's or a user's: escaped, so nothing in them pings or links.
    const list = prompts.slice(0, 4).map((p) => ({ title: escapeAll(p.title), message: escapeAll(p.message) }));
    if (list.length === 0) return;
    // Without a thread (the agent experience's DM): Slack sets them on the DM's latest message, and
    // drops a call there that names a thread.
    const args = {
      channel_id: place.channel,
      ...(place.thread ? { thread_ts: place.thread } : {}),
      prompts: list,
      ...(title ? { title } : {}),
    };
    await this.run(place, 'assistant.threads.setSuggestedPrompts', (gateway) =>
      gateway.methodCall(place, 'assistant.threads.setSuggestedPrompts', args, 3),
    );
  }

  async setTitle(place: Place, title: string): Promise<void> {
    const text = threadTitle(title);
    if (!place.thread || text === '') return;
    const args = { channel_id: place.channel, thread_ts: place.thread, title: text };
    await this.run(place, 'assistant.threads.setTitle', (gateway) =>
      gateway.methodCall(place, 'assistant.threads.setTitle', args, 3),
    );
  }

  /** The workspace left: what it lacked is asked of Slack again after a re-install. */
  forget(team: string): void {
    this.noChannelStatus.delete(team);
    for (const key of this.unsupported) if (key.startsWith(`${team} `)) this.unsupported.delete(key);
  }

  private team(place: Place): string {
    return place.workspace || this.deps.team();
  }

  /** One call; a method the workspace does not offer is remembered (logged once) and later calls there skipped. */
  private async run(place: Place, method: Method, send: (gateway: SlackGateway) => Promise<unknown>): Promise<void> {
    const key = `${this.team(place)} ${method}`;
    if (this.unsupported.has(key)) return;
    try {
      await send(this.deps.gateway());
    } catch (err) {
      const code = slackErrorCode(err);
      if ((code && UNSUPPORTED.has(code)) || isMissingMethod(err)) {
        this.unsupported.add(key);
        this.deps.log.warn(
          { method, code: code ?? 'missing' },
          `slack: ${method} is not available in this workspace (${code ?? 'no such method'}); carrying on without it (add the assistant:write scope and enable the assistant pane to use it)`,
        );
        return;
      }
      throw err;
    }
  }
}

/** The first question as a thread title: one line, at most MAX_TITLE characters. */
export function threadTitle(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_TITLE ? line : `${line.slice(0, MAX_TITLE - 1).trimEnd()}…`;
}
