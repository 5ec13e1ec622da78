/**
 * The e-mail outbox over the real SMTP protocol (an SMTP server on 127.0.0.1): a mail is owed once
 * and sent once, across a restart and across two instances; a server that refuses, then accepts, is
 * retried with back-off on an injected clock, and the failure is readable meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smtpMailer, type Mail, type Mailer } from '../../src/mail/mailer';
import { MailOutbox } from '../../src/mail/outbox';
import { SqliteStore } from '../../src/state/sqlite-store';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { silentLog } from '../support/silent-log';

const log = silentLog;
const DAY = 24 * 3600 * 1000;

const mail = (n: number): Mail => ({
  to: 'agents@example.com',
  subject: `Handoff: Alice — Austin (${n})`,
  text: `Plain part ${n}: déjà vu`,
  html: `<p>HTML part ${n}: d&eacute;j&agrave; vu</p>`,
});

describe('mail outbox', () => {
  let sink: SmtpSink;
  let dir: string;
  let mailer: Mailer;
  let clock = Date.parse('2026-03-02T15:00:00Z');
  const now = () => clock;

  beforeAll(async () => {
    sink = await startSmtpSink({ user: 'bridge', pass: 'p@ss word' });
    mailer = smtpMailer({ url: sink.url, from: 'Skyline Bot <bot@example.com>' });
    dir = mkdtempSync(join(tmpdir(), 'mail-outbox-'));
  });
  afterAll(async () => {
    mailer.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const outboxOn = (store: SqliteStore, instanceId: string) =>
    new MailOutbox({ store, log, mailer, instanceId, now, retryBaseMs: 30_000, retentionMs: DAY });

  it('sends an owed mail once with both parts, as the server received it (credentials from the URL)', async () => {
    const store = new SqliteStore(join(dir, 'a.db'));
    const outbox = outboxOn(store, 'i1');
    expect(await outbox.owe('t1:afterhours', mail(1))).toBe(true);
    expect(await outbox.owe('t1:afterhours', mail(1))).toBe(false);
    expect(await outbox.drain()).toBe(1);
    expect(await outbox.drain()).toBe(0);
    expect(sink.mails).toHaveLength(1);
    const got = sink.mails[0]!;
    expect(got.to).toEqual(['agents@example.com']);
    expect(got.from).toBe('bot@example.com');
    expect(got.subject).toBe('Handoff: Alice — Austin (1)');
    expect(got.text).toBe('Plain part 1: déjà vu');
    expect(got.html).toBe('<p>HTML part 1: d&eacute;j&agrave; vu</p>');
    expect(got.messageId).toBe('<t1.afterhours@chatbot-bridge>');
    await store.close();
  });

  it('a restart between owing and sending sends it once; two instances draining together send it once', async () => {
    const path = join(dir, 'b.db');
    const before = sink.mails.length;
    const first = new SqliteStore(path);
    await outboxOn(first, 'i1').owe('t2:unclaimed', mail(2));
    await first.close(); // the process dies before any drain
    const a = new SqliteStore(path);
    const b = new SqliteStore(path);
    // Two instances, and two drains of one instance (its lease is per instance), at once.
    const one = outboxOn(a, 'i1');
    const sent = await Promise.all([one.drain(), one.drain(), outboxOn(b, 'i2').drain()]);
    expect(sent.reduce((x, y) => x + y, 0)).toBe(1);
    // Owing it again after it went out (a replayed step) adds nothing.
    expect(await outboxOn(a, 'i1').owe('t2:unclaimed', mail(2))).toBe(false);
    expect(await outboxOn(a, 'i1').drain()).toBe(0);
    expect(sink.mails.slice(before).map((m) => m.subject)).toEqual(['Handoff: Alice — Austin (2)']);
    await a.close();
    await b.close();
  });

  it('a server that refuses, then accepts: retried with back-off, the failure readable meanwhile', async () => {
    const store = new SqliteStore(join(dir, 'c.db'));
    const outbox = outboxOn(store, 'i1');
    const before = sink.mails.length;
    sink.refuseNext(2);
    await outbox.owe('t3:afterhours', mail(3));
    expect(await outbox.drain()).toBe(0);
    let [failure] = await outbox.failures();
    expect(failure).toMatchObject({ id: 't3:afterhours', tries: 1, nextAt: clock + 30_000 });
    expect(failure?.error).toMatch(/^451 .*mailbox busy/);
    // Not before its time.
    clock += 29_000;
    expect(await outbox.drain()).toBe(0);
    expect(sink.refused).toBe(1);
    clock += 1_000;
    expect(await outbox.drain()).toBe(0);
    [failure] = await outbox.failures();
    expect(failure).toMatchObject({ tries: 2, nextAt: clock + 60_000 });
    clock += 60_000;
    expect(await outbox.drain()).toBe(1);
    expect(sink.refused).toBe(2);
    expect(await outbox.failures()).toEqual([]);
    expect(sink.mails.slice(before).map((m) => m.subject)).toEqual(['Handoff: Alice — Austin (3)']);
    await store.close();
  });

  it('without SMTP_URL nothing is owed or sent', async () => {
    const store = new SqliteStore(join(dir, 'd.db'));
    const plain = new MailOutbox({ store, log, instanceId: 'i1', now, retentionMs: DAY });
    expect(plain.enabled).toBe(false);
    expect(await plain.owe('t4:afterhours', mail(4))).toBe(false);
    expect(await plain.drain()).toBe(0);
    await store.close();
  });
});
