/**
 * Slack's assistant.threads.* methods (the assistant pane): status, suggested prompts, title.
 *
 * Each call spends its rate budget in the store first (setStatus: about 60 a minute per DM;
 * setSuggestedPrompts and setTitle: Tier 3, about 50 a minute per workspace). A workspace without
 * the feature (`unknown_method`, `not_allowed_token_type`, `missing_scope`, or a Web API without the
 * method) is said once in the log, and the bridge carries on without that method.
 */
import type { Logger } from 'pino';
import type { Place, RateBudget } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { SlackGateway } from './gateway';
import { isMissingMethod, slackErrorCode } from './web';

export const ASSISTANT_BUDGETS = {
  /** Per channel (a DM): Slack allows about one status a second there. */
  status: { limit: 60, windowMs: 60_000 },
  /** Tier 3, per workspace. */
  tier3: { limit: 50, windowMs: 60_000 },
} as const;

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

export class AssistantThreads {
  /** Methods this workspace does not offer: not called again. */
  private readonly unsupported = new Set<Method>();
  /** Workspaces that refused a status in a channel thread (outside the assistant pane): DMs only there. */
  private readonly noChannelStatus = new Set<string>();

  constructor(
    /** The surface's one outbound path (the port's gateway, known once the port exists). */
    private readonly deps: { gateway: () => SlackGateway; store: StateStore; log: Logger; team: () => string },
  ) {}

  /** Non-empty: the status with rotating loading messages; '' clears it. Never throws. */
  async setStatus(place: Place, status: string): Promise<void> {
    if (!place.thread) return;
    const inChannel = !place.channel.startsWith('D');
    if (inChannel && this.noChannelStatus.has(this.team(place))) return;
    const budget: RateBudget = {
      key: `slack:${this.team(place)}:assistant.setStatus:${place.channel}`,
      ...ASSISTANT_BUDGETS.status,
    };
    // Cosmetic: a status without budget is skipped rather than delaying the answer; a clear is always
    // sent (a status left up would say "thinking" over a finished answer).
    const token = await this.deps.store.takeToken(budget.key, budget.limit, budget.windowMs).catch(() => undefined);
    if (!token?.granted && status !== '') return;
    await this.run(
      'assistant.threads.setStatus',
      {
        channel_id: place.channel,
        thread_ts: place.thread,
        status,
        ...(status ? { loading_messages: LOADING_MESSAGES } : {}),
      },
      [],
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
    const list = prompts.slice(0, 4);
    if (list.length === 0) return;
    // Without a thread (the agent experience's DM): Slack sets them on the DM's latest message, and
    // drops a call there that names a thread.
    await this.run(
      'assistant.threads.setSuggestedPrompts',
      {
        channel_id: place.channel,
        ...(place.thread ? { thread_ts: place.thread } : {}),
        prompts: list,
        ...(title ? { title } : {}),
      },
      [this.tier3(place, 'setSuggestedPrompts')],
    );
  }

  async setTitle(place: Place, title: string): Promise<void> {
    const text = threadTitle(title);
    if (!place.thread || text === '') return;
    await this.run('assistant.threads.setTitle', { channel_id: place.channel, thread_ts: place.thread, title: text }, [
      this.tier3(place, 'setTitle'),
    ]);
  }

  private team(place: Place): string {
    return place.workspace || this.deps.team();
  }

  private tier3(place: Place, what: string): RateBudget {
    return { key: `slack:${this.team(place)}:assistant.${what}`, ...ASSISTANT_BUDGETS.tier3 };
  }

  /** One call; an unsupported method is remembered (logged once) and later calls are skipped. */
  private async run(method: Method, args: Record<string, unknown>, budgets: RateBudget[]): Promise<void> {
    if (this.unsupported.has(method)) return;
    try {
      await this.deps.gateway().assistantCall(method, args, budgets);
    } catch (err) {
      const code = slackErrorCode(err);
      if ((code && UNSUPPORTED.has(code)) || isMissingMethod(err)) {
        this.unsupported.add(method);
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
