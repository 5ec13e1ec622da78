/**
 * The bridge's own messages that carry its buttons, recorded as they are posted, so taking buttons
 * off a thread's earlier answers (a handoff's "Talk to a human") never reads the thread back: Slack
 * allows a distributed app one history read a minute per workspace (distribution.ts), and ten
 * handoffs in a minute in one workspace would find nine threads unread.
 *
 * One record per message, in its workspace's part of the store (`t:slack:<team>:btn:<channel>:
 * <thread>:<ts>`): the payload the message last showed (text and blocks, as sent) and the core actions
 * of its buttons. Every post, edit and stream stop of the surface goes through `note` (the gateway's
 * and the native stream's), so a record follows its message: an edit without buttons deletes it.
 * A record per message, not one per thread: two answers of one thread written at once never race.
 */
import type { Logger } from 'pino';
import type { MessageRef, Place } from '../../core/surface';
import type { Json, StateStore } from '../../state/store';
import { type ScopedKey, scoped, scopedPrefix, tenantFor, tenantStore } from '../../state/tenant-store';
import { z } from 'zod';
import { buttonValueFromAction } from './blocks';

/** As long as a conversation's buttons can still be pressed (a Retry record's lifetime). */
const RECORD_TTL_MS = 14 * 24 * 60 * 60 * 1000;
/** When this deployment began recording (raw store: one mark for every workspace); see `complete`. */
const SINCE_KEY = 'slack:button-records:since';

type Block = Record<string, unknown>;

/** What a message showed when last sent: enough to send it again without some of its buttons. */
export interface SentPayload {
  text: string;
  blocks: unknown[];
}

const recordSchema = z.object({
  ts: z.string(),
  text: z.string(),
  blocks: z.array(z.record(z.unknown())),
  actions: z.array(z.string()),
});
export type ButtonRecord = z.infer<typeof recordSchema>;

/** The core actions of the bridge's buttons in a message's actions blocks (cards' own buttons stay). */
function buttonActions(blocks: unknown[]): string[] {
  const out = new Set<string>();
  for (const b of blocks as Block[]) {
    if (b?.type !== 'actions' || !Array.isArray(b.elements)) continue;
    for (const el of b.elements as Array<{ action_id?: string; value?: string }>) {
      const routed = el.action_id ? buttonValueFromAction(el.action_id, el.value) : undefined;
      if (routed) out.add(routed.a);
    }
  }
  return [...out];
}

/** The blocks without the bridge's buttons of `actions`; undefined when none was there. */
export function withoutButtons(blocks: Block[], actions: string[]): Block[] | undefined {
  let changed = false;
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.type !== 'actions' || !Array.isArray(b.elements)) {
      out.push(b);
      continue;
    }
    const kept = (b.elements as Array<{ action_id?: string; value?: string }>).filter((el) => {
      const routed = el.action_id ? buttonValueFromAction(el.action_id, el.value) : undefined;
      const drop = routed !== undefined && actions.includes(routed.a);
      if (drop) changed = true;
      return !drop;
    });
    if (kept.length > 0) out.push({ ...b, elements: kept });
  }
  return changed ? out : undefined;
}

export class ButtonRecords {
  private since: Promise<number> | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    // From the start: a thread begun after this is known whole by its records.
    void this.startedRecording();
  }

  private view(team: string) {
    return tenantStore(this.store, tenantFor('slack', team));
  }

  private key(ref: MessageRef): ScopedKey {
    // A thread's root is in its own thread (a root that carries buttons is found with its replies).
    return scoped('btn', ref.place.channel, ref.place.thread ?? ref.id, ref.id);
  }

  /**
   * The message `ref` of workspace `team` now shows `payload`: recorded while it carries the bridge's
   * buttons, forgotten once it does not. Never fails its caller: a record that cannot be written
   * costs a button left on a message, not the message.
   */
  async note(team: string, ref: MessageRef, payload: SentPayload, edit: boolean): Promise<void> {
    if (!team) return;
    const actions = buttonActions(payload.blocks);
    try {
      await this.startedRecording();
      const view = this.view(team);
      if (actions.length > 0) {
        const rec: ButtonRecord = { ts: ref.id, text: payload.text, blocks: payload.blocks as Block[], actions };
        await view.set(this.key(ref), rec as unknown as Json, RECORD_TTL_MS);
      } else if (edit) await view.delete(this.key(ref));
    } catch (err) {
      this.log.warn({ err, channel: ref.place.channel }, 'slack: could not record a message with buttons');
    }
  }

  /** The recorded messages of a thread (`thread.thread` its root's ts) carrying any of `actions`. */
  async carrying(team: string, thread: Place, actions: string[]): Promise<ButtonRecord[]> {
    if (!thread.thread || !team) return [];
    const view = this.view(team);
    const out: ButtonRecord[] = [];
    for (const k of await view.keys(scopedPrefix('btn', thread.channel, thread.thread))) {
      const rec = recordSchema.safeParse(await view.get(k));
      if (rec.success && rec.data.actions.some((a) => actions.includes(a))) out.push(rec.data);
    }
    return out.sort((a, b) => a.ts.localeCompare(b.ts));
  }

  /**
   * Whether the records of a thread are all there is: the thread began after this deployment began
   * recording (a Slack ts is the message's time in seconds). An older thread may carry buttons posted
   * before, which only a history read can find.
   */
  async complete(thread: Place): Promise<boolean> {
    if (!thread.thread) return true;
    const since = await this.startedRecording();
    // Whole seconds: a ts counts seconds, and its fraction is a sequence, not milliseconds.
    return Math.floor(Number(thread.thread)) >= Math.floor(since / 1000);
  }

  private startedRecording(): Promise<number> {
    if (!this.since) {
      const at = this.now();
      this.since = this.store
        .setIfAbsent(SINCE_KEY, at)
        .then(() => this.store.get(SINCE_KEY))
        .then((v) => (typeof v === 'number' ? v : at))
        .catch(() => {
          this.since = undefined;
          return at;
        });
    }
    return this.since;
  }
}
