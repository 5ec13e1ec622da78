/**
 * The durable outbox of e-mails, on the store's outbox primitive (the one ticket notices use): a mail
 * is owed once under a stable id, in one atomic store step, then sent by whichever instance holds its
 * lease and marked done. A restart neither loses it (it stays pending) nor doubles it (the id is
 * owed once, and done ids are remembered). A refused or failed send is retried with back-off; the
 * failures are kept in the store, so `/handoff queue` on any instance shows them.
 *
 * A mail may name a condition (`stillWanted`), asked just before each try: a mail whose reason has
 * passed meanwhile is dropped rather than sent late.
 *
 * What remains: a crash after the server accepted a mail but before it was marked done (one store
 * write) sends it again on replay, with the same Message-ID.
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Json, StateStore } from '../state/store';
import type { Mail, Mailer } from './mailer';

const MAIL_BOX = 'mail';
const mailSchema = z.object({
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  messageId: z.string().optional(),
});
const failureSchema = z.object({
  tries: z.number(),
  nextAt: z.number(),
  error: z.string(),
  subject: z.string(),
  gaveUp: z.boolean().optional(),
});
export type MailFailure = z.infer<typeof failureSchema> & { id: string };

const owedKey = (id: string) => `mailowed:${id}`;
const failureKey = (id: string) => `mailfail:${id}`;
const FAILURE_PREFIX = 'mailfail:';

/** A sent mail's id is remembered this long (a replayed owe stays a no-op). */
const DONE_TTL_MS = 7 * 24 * 3600 * 1000;
/** A mail the server keeps refusing is given up after this many tries (about 4 h at the default back-off). */
const MAX_TRIES = 12;
const MAX_BACKOFF_MS = 30 * 60_000;
/** Longer than one send may take with nodemailer's step timeouts. */
const LEASE_MS = 120_000;
/** How long a given-up mail is still shown in the queue. */
const GAVE_UP_SHOWN_MS = 24 * 3600 * 1000;

export interface MailOutboxDeps {
  store: StateStore;
  log: Logger;
  /** Absent: SMTP_URL is not set, and nothing is e-mailed. */
  mailer?: Mailer;
  instanceId: string;
  now(): number;
  /** The first retry waits this long, doubling each time (default 30 s). */
  retryBaseMs?: number;
  /** How long an owed mail's marker is kept (its ticket's retention). */
  retentionMs: number;
  /**
   * Asked under the lease just before a send: false drops the mail (marked done, never sent). A mail
   * owed for a state that has passed (a ticket claimed while its "unclaimed" mail waited for a retry or
   * a restart) is not worth sending late.
   */
  stillWanted?(id: string): Promise<boolean>;
}

export class MailOutbox {
  /** Mails this process is sending now: its lease is per instance, so two drains here would both hold it. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: MailOutboxDeps) {}

  get enabled(): boolean {
    return this.deps.mailer !== undefined;
  }

  /** Owes `mail` under `id`, once for life: false when it was owed before (or e-mail is off). */
  async owe(id: string, mail: Mail): Promise<boolean> {
    if (!this.deps.mailer) return false;
    const { store, now, retentionMs } = this.deps;
    const value = { ...mail, messageId: mail.messageId ?? messageIdOf(id) } as unknown as Json;
    return store.compareAndSetWithIntents(owedKey(id), undefined, now(), retentionMs, MAIL_BOX, [{ id, value }]);
  }

  /** Whether a mail was ever owed under `id` (within its retention). */
  async isOwed(id: string): Promise<boolean> {
    return (await this.deps.store.get(owedKey(id))) !== undefined;
  }

  /** Sends every pending mail whose retry time has come, oldest first. The count sent. */
  async drain(): Promise<number> {
    if (!this.deps.mailer) return 0;
    let sent = 0;
    for (const intent of await this.deps.store.pendingIntents(MAIL_BOX, 100)) {
      if (await this.sendOne(intent.id)) sent++;
    }
    return sent;
  }

  /** Mails that failed at least once and are not sent yet (or were given up lately), for the queue. */
  async failures(): Promise<MailFailure[]> {
    const out: MailFailure[] = [];
    for (const key of await this.deps.store.keys(FAILURE_PREFIX)) {
      const parsed = failureSchema.safeParse(await this.deps.store.get(key));
      if (parsed.success) out.push({ ...parsed.data, id: key.slice(FAILURE_PREFIX.length) });
    }
    return out.sort((a, b) => a.nextAt - b.nextAt);
  }

  private async sendOne(id: string): Promise<boolean> {
    if (this.inFlight.has(id)) return false;
    this.inFlight.add(id);
    try {
      return await this.sendHeld(id);
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async sendHeld(id: string): Promise<boolean> {
    const { store, instanceId, now, log } = this.deps;
    const failure = failureSchema.safeParse(await store.get(failureKey(id)));
    if (failure.success && failure.data.nextAt > now()) return false;
    const lease = `mail:${id}`;
    if (!(await store.acquireLease(lease, instanceId, LEASE_MS))) return false;
    try {
      // Read again under the lease: another instance may have sent it meanwhile.
      const stored = await store.intent(MAIL_BOX, id);
      if (stored?.state !== 'pending') return false;
      const mail = mailSchema.safeParse(stored.value);
      if (!mail.success) {
        log.error({ mail: id }, 'mail: an unreadable mail is dropped');
        await store.completeIntent(MAIL_BOX, id, DONE_TTL_MS);
        return false;
      }
      if (this.deps.stillWanted && !(await this.deps.stillWanted(id))) {
        log.info({ mail: id }, 'mail: no longer wanted (what it was owed for has passed); not sent');
        await store.completeIntent(MAIL_BOX, id, DONE_TTL_MS);
        await store.delete(failureKey(id));
        return false;
      }
      try {
        await this.deps.mailer?.send(mail.data);
      } catch (err) {
        await this.failed(id, mail.data.subject, failure.success ? failure.data.tries : 0, err);
        return false;
      }
      await store.completeIntent(MAIL_BOX, id, DONE_TTL_MS);
      await store.delete(failureKey(id));
      log.info({ mail: id }, 'mail: sent');
      return true;
    } finally {
      await store.releaseLease(lease, instanceId).catch(() => undefined);
    }
  }

  private async failed(id: string, subject: string, before: number, err: unknown): Promise<void> {
    const { store, now, log } = this.deps;
    const tries = before + 1;
    const error = smtpError(err);
    if (tries >= MAX_TRIES) {
      log.error({ mail: id, tries, error }, 'mail: the server keeps refusing a mail; given up');
      await store.completeIntent(MAIL_BOX, id, DONE_TTL_MS);
      await store.set(failureKey(id), { tries, nextAt: now(), error, subject, gaveUp: true }, GAVE_UP_SHOWN_MS);
      return;
    }
    const wait = Math.min(MAX_BACKOFF_MS, (this.deps.retryBaseMs ?? 30_000) * 2 ** (tries - 1));
    log.warn({ mail: id, tries, error, retryInMs: wait }, 'mail: sending failed; it is tried again');
    await store.set(failureKey(id), { tries, nextAt: now() + wait, error, subject }, this.deps.retentionMs);
  }
}

/** The server's answer ("550 5.1.1 mailbox unavailable") or the network's ("ECONNREFUSED"): never a URL. */
function smtpError(err: unknown): string {
  const e = err as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const text =
    typeof e.response === 'string'
      ? e.response
      : typeof e.code === 'string'
        ? e.code
        : typeof e.message === 'string'
          ? e.message
          : 'unknown error';
  return text
    .replace(/\s+/g, ' ')
    .replace(/\w+:\/\/\S+/g, '(url)')
    .slice(0, 200);
}

function messageIdOf(id: string): string {
  return `<${id.replace(/[^A-Za-z0-9.-]/g, '.')}@chatbot-bridge>`;
}
