/**
 * Answers one interaction the way Discord allows: the first response must come within 3 s and a
 * modal can only be that first response. Nothing is sent until core's first call (so `openForm`
 * can still show a modal) or until `deferAfterMs`, when the interaction is deferred; later calls
 * become edits of the deferred reply or follow-ups. Calls are serialised: one interaction's
 * responses go out in order.
 */
import {
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type BaseMessageOptions,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Logger } from 'pino';
import type { ModalBody } from './modal';
import { IS_COMPONENTS_V2 } from './components-v2';
import { asComponentsV2, sendableMentions, type MessageBody, type RenderedMessage } from './render';

export type Repliable = ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction;

type State = 'fresh' | 'deferred' | 'deferredUpdate' | 'replied' | 'modal';

export interface ResponderOptions {
  /** When core has not answered yet, defer after this long (Discord's deadline is 3 s). */
  deferAfterMs: number;
  /** Whether a deferred reply (commands) is ephemeral: decided up front per command. */
  deferEphemeral: boolean;
  log: Logger;
  /**
   * The bot may not post where the interaction happened (user-install.ts): every answer is the
   * invoker's own, ephemeral, and nothing roots a thread.
   */
  privately?: boolean;
  /** Called with each ephemeral message, so later edits of it can go through this interaction. */
  onEphemeral(messageId: string, edit: (msg: RenderedMessage) => Promise<void>): void;
}

type Payload = BaseMessageOptions & { flags?: number };

/** A body as discord.js sends it; a Components V2 body carries its flag and neither content nor embeds. */
function bodyPayload(body: MessageBody, files: RenderedMessage['files'] = []): Payload {
  const v2 = ((body.flags ?? 0) & IS_COMPONENTS_V2) !== 0;
  return {
    ...(v2 ? { flags: IS_COMPONENTS_V2 } : { content: body.content, embeds: body.embeds }),
    components: body.components as BaseMessageOptions['components'],
    allowedMentions: sendableMentions(body),
    files: files.map((f) => ({ attachment: Buffer.from(f.data as Buffer), name: f.name })),
  };
}

export function djsPayload(msg: RenderedMessage): Payload {
  return bodyPayload(msg.body, msg.files);
}

/** The payload's own flags with Ephemeral added when asked. */
function withEphemeral(p: Payload, ephemeral: boolean): number | undefined {
  const flags = (p.flags ?? 0) | (ephemeral ? MessageFlags.Ephemeral : 0);
  return flags === 0 ? undefined : flags;
}

export class Responder {
  private state: State = 'fresh';
  private originalUsed = false;
  private deferredEphemeral = false;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  /** False once the core call that owns this interaction has returned. */
  live = true;

  constructor(
    readonly interaction: Repliable,
    private readonly opts: ResponderOptions,
  ) {}

  get privately(): boolean {
    return this.opts.privately === true;
  }

  get userId(): string {
    return this.interaction.user.id;
  }

  get channelId(): string | null {
    return this.interaction.channelId;
  }

  /** Arms the deferral timer. */
  start(): void {
    this.timer = setTimeout(() => {
      void this.serial(() => this.deferIfFresh()).catch((err: unknown) =>
        this.opts.log.warn({ err: errInfo(err) }, 'discord: could not defer an interaction'),
      );
    }, this.opts.deferAfterMs);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async deferIfFresh(): Promise<void> {
    if (this.state !== 'fresh') return;
    const i = this.interaction;
    if (i.isButton() || (i.isModalSubmit() && i.isFromMessage())) {
      await i.deferUpdate();
      this.state = 'deferredUpdate';
      return;
    }
    this.deferredEphemeral = this.opts.deferEphemeral;
    await i.deferReply(this.opts.deferEphemeral ? { flags: MessageFlags.Ephemeral } : {});
    this.state = 'deferred';
  }

  reply(msg: RenderedMessage, asked: boolean): Promise<string | undefined> {
    const ephemeral = asked || this.privately;
    return this.serial(async () => {
      const i = this.interaction;
      const payload = djsPayload(msg);
      let id: string | undefined;
      if (this.state === 'fresh') {
        id = await this.replyWithId({ ...payload, flags: withEphemeral(payload, ephemeral) });
        this.state = 'replied';
      } else if (this.state === 'deferred' && !this.originalUsed && this.deferredEphemeral === ephemeral) {
        id = (await i.editReply(payload)).id;
        this.originalUsed = true;
      } else {
        id = (await i.followUp({ ...payload, flags: withEphemeral(payload, ephemeral) })).id;
      }
      await this.followUps(msg, ephemeral);
      if (ephemeral && id) {
        const messageId = id;
        this.opts.onEphemeral(messageId, async (m) => {
          await i.webhook.editMessage(messageId, djsPayload(m));
        });
      }
      return id;
    });
  }

  /**
   * Replies and learns the reply's message id: from the callback's response, or, when the platform
   * answered the callback without a body, by fetching the original response.
   */
  /** The messages that go on after a reply or an update (render.ts's `more`), as follow-ups. */
  private async followUps(msg: RenderedMessage, ephemeral: boolean): Promise<void> {
    for (const body of msg.more ?? []) {
      const p = bodyPayload(body);
      await this.interaction.followUp({ ...p, flags: withEphemeral(p, ephemeral) });
    }
  }

  private async replyWithId(payload: Payload): Promise<string | undefined> {
    const i = this.interaction;
    try {
      const res = await i.reply({ ...payload, withResponse: true });
      const id = res.resource?.message?.id;
      if (id) return id;
    } catch (err) {
      if (!i.replied) throw err;
    }
    return (await i.fetchReply().catch(() => undefined))?.id;
  }

  /** Replaces the message carrying the clicked component. False when this interaction has none. */
  update(msg: RenderedMessage): Promise<boolean> {
    return this.serial(async () => {
      const i = this.interaction;
      if (!(i.isButton() || (i.isModalSubmit() && i.isFromMessage()))) return false;
      const ephemeral = i.message?.flags.has(MessageFlags.Ephemeral) ?? false;
      // A message sent as Components V2 stays one: its replacement is laid out the same way.
      if (i.message?.flags.has(MessageFlags.IsComponentsV2)) msg = { ...msg, body: asComponentsV2(msg.body) };
      if (this.state === 'fresh') {
        await i.update(djsPayload(msg));
        this.state = 'replied';
      } else if (this.state === 'deferredUpdate') {
        await i.editReply(djsPayload(msg));
      } else {
        if (!i.message) return false;
        await i.webhook.editMessage(i.message.id, djsPayload(msg));
      }
      await this.followUps(msg, ephemeral);
      return true;
    });
  }

  /** Shows a modal when this is still possible (first response, not itself a modal submit). */
  showModal(body: ModalBody): Promise<boolean> {
    return this.serial(async () => {
      const i = this.interaction;
      if (this.state !== 'fresh' || i.isModalSubmit()) return false;
      await i.showModal(body);
      this.state = 'modal';
      return true;
    });
  }

  /**
   * Uses the interaction's public reply as a thread's root message, when it is still free and lives
   * in `channelId`. Undefined when the caller must post the root itself.
   */
  /**
   * Whether this interaction is a slash command in `channelId`: only then can its reply root a thread
   * there. Asked before queueing behind the responder's other calls, which may be the very ones
   * waiting for a thread elsewhere (a button pressed in a DM that opens a ticket in a guild channel).
   */
  isCommandIn(channelId: string): boolean {
    const i = this.interaction;
    return !this.privately && this.opensConversations() && i.channelId === channelId;
  }

  /** A slash command, or a form it opened (`/ask` with photos): its reply is the channel's, free to root a thread. */
  private opensConversations(): boolean {
    const i = this.interaction;
    return i.isChatInputCommand() || (i.isModalSubmit() && !i.isFromMessage());
  }

  rootMessage(msg: RenderedMessage, channelId: string): Promise<string | undefined> {
    return this.serial(async () => {
      const i = this.interaction;
      if (this.privately || !this.opensConversations() || i.channelId !== channelId) return undefined;
      if (this.state === 'fresh') {
        this.state = 'replied';
        return this.replyWithId(djsPayload(msg));
      }
      if (this.state === 'deferred' && !this.originalUsed && !this.deferredEphemeral) {
        this.originalUsed = true;
        return (await i.editReply(djsPayload(msg))).id;
      }
      return undefined;
    });
  }

  /** After core returned: an interaction still unanswered is acknowledged; an unused deferral removed. */
  finish(): Promise<void> {
    clearTimeout(this.timer);
    return this.serial(async () => {
      this.live = false;
      const i = this.interaction;
      if (this.state === 'fresh') {
        if (i.isButton() || (i.isModalSubmit() && i.isFromMessage())) await i.deferUpdate();
        else await i.reply({ content: 'Done.', flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
        this.state = 'replied';
      } else if (this.state === 'deferred' && !this.originalUsed) {
        await i.deleteReply();
      }
    });
  }
}

/** What may be logged of a platform error: never its URL (interaction tokens live in webhook paths). */
export function errInfo(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; status?: unknown; method?: unknown };
    return { name: e.name, message: e.message, code: e.code, status: e.status, method: e.method };
  }
  return { message: String(err) };
}
