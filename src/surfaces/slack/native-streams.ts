/**
 * Slack's native streaming (chat.startStream / appendStream / stopStream) for the port: whether the
 * workspace offers it (NativeSupport: learnt from the first refusal, chat.update there for a while),
 * which threads have a live stream (the
 * relay's edits there are appends), and the reservation of each stream's stop. Calls go through the
 * gateway like everything else.
 */
import type { Logger } from 'pino';
import {
  type MessageRef,
  type NativeStream,
  type OutMessage,
  type Person,
  type Place,
  PlatformRateLimitError,
} from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { CardFallback } from './card-fallback';
import type { RenderedMessage } from './blocks';
import type { SlackGateway } from './gateway';
import { type NativeAdmission, NativeSupport } from './native-support';
import { SlackNativeStream } from './native-stream';
import { slackMarkdownText } from './safe-text';
import { httpStatus, isMissingMethod, slackErrorCode, translateError } from './web';

/** A native stream expires after 5 minutes; the relay rotates before then. */
export const NATIVE_STREAM_TTL_MS = 5 * 60 * 1000;
/** Errors meaning "this workspace has no native streaming": chat.update from then on, for a while. */
const STREAM_UNAVAILABLE = new Set([
  'unknown_method',
  'feature_not_enabled',
  'not_allowed_token_type',
  'method_deprecated',
  'not_supported',
]);
export interface NativeStreamsDeps {
  gateway: SlackGateway;
  /** Where the workspace's refusal of native streaming is kept for the other instances. */
  store: StateStore;
  cards: CardFallback;
  log: Logger;
  /** The workspace of a place (the bot's own team when it names none). */
  team: (place: Place) => string;
  /** The port's chat.update of a message (a failed stream is finished with it). */
  edit: (ref: MessageRef, msg: OutMessage) => Promise<void>;
  /** A stream stopped showing this whole payload (its text and the blocks after it): see button-records.ts. */
  stopped: (ref: MessageRef, payload: RenderedMessage) => Promise<void>;
}

export class SlackNativeStreams {
  /** Which workspaces offer native streaming (chat.update meanwhile where refused). */
  private readonly support: NativeSupport;
  /** Per thread: native streams this process has live there, with when each expires. */
  private readonly liveStreams = new Map<string, Map<string, number>>();
  /**
   * Per live native stream (channel and ts): the release of its stop's reservation (see
   * SlackGateway.reserveStream), called once the stream is stopped here or by stopNativeStream.
   */
  private readonly stopReservations = new Map<string, () => void>();

  constructor(private readonly deps: NativeStreamsDeps) {
    this.support = new NativeSupport({ store: deps.store, log: deps.log });
  }

  /** The workspace left: forget what it offered, and its threads' live streams (their answers stop). */
  forget(team: string): void {
    this.support.forget(team);
    for (const key of this.liveStreams.keys()) if (key.startsWith(`${team}:`)) this.liveStreams.delete(key);
  }

  private threadKey(place: Place): string {
    return `${this.deps.team(place)}:${place.channel}:${place.thread ?? ''}`;
  }

  /** True while this process streams natively in the thread (the relay's edits there are appends). */
  streamingIn(place: Place): boolean {
    const live = this.liveStreams.get(this.threadKey(place));
    if (!live) return false;
    const now = Date.now();
    for (const [ts, expiresAt] of live) if (expiresAt <= now) live.delete(ts);
    if (live.size === 0) this.liveStreams.delete(this.threadKey(place));
    return live.size > 0;
  }

  private markLive(place: Place, ts: string, expiresAt: number, releaseStop: () => void): () => void {
    const key = this.threadKey(place);
    const live = this.liveStreams.get(key) ?? new Map<string, number>();
    live.set(ts, expiresAt);
    this.liveStreams.set(key, live);
    this.stopReservations.set(`${place.channel}:${ts}`, releaseStop);
    // A stream nobody stops (its answer gave up) expires at Slack: its stop is not due after that.
    setTimeout(() => this.releaseStop(place, ts), expiresAt - Date.now()).unref();
    return () => {
      const l = this.liveStreams.get(key);
      l?.delete(ts);
      if (l && l.size === 0) this.liveStreams.delete(key);
    };
  }

  private releaseStop(place: Place, ts: string): void {
    const key = `${place.channel}:${ts}`;
    this.stopReservations.get(key)?.();
    this.stopReservations.delete(key);
  }

  async start(
    place: Place,
    first: OutMessage,
    opts: { latest?: () => OutMessage; for?: Person } = {},
  ): Promise<NativeStream | undefined> {
    const team = this.deps.team(place);
    if (!place.thread) return undefined;
    // Until a start went through in the workspace, one start asks Slack and the others wait for it.
    const admission = await this.support.admit(team);
    if (!admission) return undefined;
    try {
      return await this.startAdmitted(place, first, opts, team, admission);
    } finally {
      // Whatever failed before the start was settled (a store read, say): the next start probes.
      admission.settle('unknown');
    }
  }

  private async startAdmitted(
    place: Place,
    first: OutMessage,
    opts: { latest?: () => OutMessage; for?: Person },
    team: string,
    admission: NativeAdmission,
  ): Promise<NativeStream | undefined> {
    // Outside DMs Slack wants the stream addressed: to whom the answer is for (the thread's asker).
    const recipient = place.channel.startsWith('D') ? undefined : opts.for?.id;
    // Never waited for: answers beyond what the workspace's stream budgets carry use chat.update.
    const releaseStop = await this.deps.gateway.reserveStream(place);
    if (!releaseStop) {
      this.deps.log.debug({ team }, 'slack: stream budgets spent, using chat.update for this answer');
      return undefined;
    }
    const latest = opts.latest;
    // Read when the start goes out (again on a retry after a 429): the stream shows what it sent.
    let startText = first.text;
    let ts: string;
    try {
      const res = await this.deps.gateway.startStream(place, () => {
        startText = latest ? latest().text : first.text;
        return {
          channel: place.channel,
          thread_ts: place.thread,
          ...(startText.length > 0 ? { markdown_text: slackMarkdownText(startText) } : {}),
          ...(recipient ? { recipient_user_id: recipient, recipient_team_id: team } : {}),
        };
      });
      const started = (res as { ts?: unknown }).ts;
      if (typeof started !== 'string' || started.length === 0) throw new Error('chat.startStream answered without ts');
      ts = started;
    } catch (err) {
      releaseStop();
      return this.refusedStart(team, admission, err);
    }
    admission.settle('works');
    return this.streamOf(place, team, ts, slackMarkdownText(startText), releaseStop);
  }

  /** A start that failed: a 429 goes to the caller; otherwise chat.update (for good when unavailable). */
  private refusedStart(team: string, admission: NativeAdmission, err: unknown): undefined {
    const e = translateError(err);
    const code = slackErrorCode(err);
    const unavailable =
      !(e instanceof PlatformRateLimitError) && ((code && STREAM_UNAVAILABLE.has(code)) || isMissingMethod(err));
    admission.settle(unavailable ? 'refused' : 'unknown');
    if (e instanceof PlatformRateLimitError) throw e;
    if (unavailable) {
      this.deps.log.info(
        { team, code: code ?? `HTTP ${httpStatus(err)}` },
        'slack: native streaming unavailable, using chat.update',
      );
    } else {
      this.deps.log.warn(
        { code: code ?? String(err) },
        'slack: chat.startStream failed, using chat.update for this answer',
      );
    }
    return undefined;
  }

  private streamOf(place: Place, team: string, ts: string, shown: string, releaseStop: () => void): NativeStream {
    const expiresAt = Date.now() + NATIVE_STREAM_TTL_MS;
    const settled = this.markLive(place, ts, expiresAt, releaseStop);
    return new SlackNativeStream(
      {
        gateway: this.deps.gateway,
        update: (ref, msg) => this.deps.edit(ref, msg),
        cards: (msg, send) => this.deps.cards.send(team, () => msg, send),
        settled,
        stopped: () => this.releaseStop(place, ts),
        shows: (payload) => this.deps.stopped({ place, id: ts }, payload),
      },
      { place, id: ts },
      shown,
      expiresAt,
    );
  }

  /**
   * Finish a native stream another process left open (it died mid-answer): stop the stream, then
   * make the message show exactly `final` with chat.update, since what the dead process last
   * appended is not known here. When the stream is gone already, the chat.update alone does it.
   * `keepStreamed` (recovery of a crashed answer, whose record may lag what the stream shows): the
   * stop carries only what follows the text (notice, buttons: stopStream renders blocks after the
   * streamed text), so the words the user saw stay; chat.update with `final` only when it is gone.
   */
  async stopLeftOpen(ref: MessageRef, final: OutMessage, opts: { keepStreamed?: boolean } = {}): Promise<void> {
    let stopped = false;
    try {
      if (opts.keepStreamed) {
        const team = this.deps.team(ref.place);
        await this.deps.cards.send(
          team,
          () => ({ ...final, text: '', typing: false }),
          async (render) => {
            const tail = render().blocks;
            await this.deps.gateway.stopStream(ref, tail.length > 0 ? { blocks: tail } : {});
          },
        );
        stopped = true;
      } else await this.deps.gateway.stopStream(ref, {});
    } catch (err) {
      if (err instanceof PlatformRateLimitError) throw err;
      this.deps.log.info(
        { code: slackErrorCode(err) ?? String(err) },
        'slack: stream already over, finishing the message with chat.update',
      );
    }
    this.liveStreams.get(this.threadKey(ref.place))?.delete(ref.id);
    this.releaseStop(ref.place, ref.id);
    // Kept: the message's whole text is not known here, so no button record is written for it (a
    // later edit from a stale text would take words back; a button left is the lesser loss).
    if (stopped) return;
    await this.deps.edit(ref, final);
  }
}
