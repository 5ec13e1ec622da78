/**
 * Who a thread's answers are for: chat.startStream needs `recipient_user_id`/`recipient_team_id`
 * outside DMs. The thread's recipient lives in the state store, so whichever instance answers the
 * thread (several share one Redis) knows it. The channel's last command user stays in memory: a
 * slash command and the thread it starts are handled by the same process, moments apart.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Place } from '../../core/surface';
import type { StateStore } from '../../state/store';

/** Threads live on; a recipient is kept two days after the thread's last message. */
export const RECIPIENT_TTL_MS = 2 * 24 * 60 * 60 * 1000;
/** A thread's recipient is rewritten (TTL renewed) at most this often while unchanged. */
const REFRESH_MS = 60 * 60 * 1000;
const MAX_CACHED = 10_000;

const recipientSchema = z.string().min(1);

export class Recipients {
  /** What this process last wrote per thread, to skip identical writes. */
  private readonly written = new Map<string, { user: string; at: number }>();
  private readonly lastCommandUser = new Map<string, string>();

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
  ) {}

  static key(team: string, channel: string, thread: string): string {
    return `slack:recipient:${team}:${channel}:${thread}`;
  }

  /** A user spoke in `place` (team resolved): a thread's recipient, or a channel's command user. */
  async note(team: string, place: Place, userId: string): Promise<void> {
    if (!place.thread) {
      const k = `${team}:${place.channel}`;
      this.lastCommandUser.delete(k);
      this.lastCommandUser.set(k, userId);
      if (this.lastCommandUser.size > MAX_CACHED)
        this.lastCommandUser.delete(this.lastCommandUser.keys().next().value as string);
      return;
    }
    const key = Recipients.key(team, place.channel, place.thread);
    const seen = this.written.get(key);
    if (seen && seen.user === userId && Date.now() - seen.at < REFRESH_MS) return;
    await this.store.set(key, userId, RECIPIENT_TTL_MS);
    this.written.delete(key);
    this.written.set(key, { user: userId, at: Date.now() });
    if (this.written.size > MAX_CACHED) this.written.delete(this.written.keys().next().value as string);
  }

  /** The channel's last command user becomes the recipient of the thread just started there. */
  async adopt(team: string, thread: Place): Promise<void> {
    const user = this.lastCommandUser.get(`${team}:${thread.channel}`);
    if (user && thread.thread) await this.note(team, thread, user);
  }

  async forThread(team: string, place: Place): Promise<string | undefined> {
    if (!place.thread) return undefined;
    try {
      const v = recipientSchema.safeParse(await this.store.get(Recipients.key(team, place.channel, place.thread)));
      return v.success ? v.data : undefined;
    } catch (err) {
      // Without a recipient the stream may be refused; the relay then falls back to chat.update.
      this.log.warn({ err }, 'slack: reading a thread recipient failed');
      return undefined;
    }
  }
}
