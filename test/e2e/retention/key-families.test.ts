/**
 * RETENTION_DAYS holds for every record the bridge writes. One app with Slack and Discord runs a
 * full scenario (questions and follow-ups, a Discord DM, feedback votes, a handoff claimed, relayed
 * both ways and closed, the chatbot's settings changed, limits counted), then every key family the
 * store holds is listed with its expiry, read from the store itself (SQLite's tables, Redis's PTTL):
 * each has one, at most RETENTION_DAYS away.
 */
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask, startDiscordE2E } from '../../support/discord-e2e';
import { FakeSlack } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { answerIn } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_DAYS = 2;
const RETENTION_MS = RETENTION_DAYS * DAY_MS;
const SECRET = 'retention-signing-secret';
const SLACK_HANDOFF = 'C0RHANDOFF';
const REDIS_URL = 'redis://127.0.0.1:6379/15';
/** The families the issue names, as they are spelt in the store: each must be there after the scenario. */
const EXPECTED = [
  // A conversation's records, in its workspace's part of the store:
  't:*:conv:*', // conversations, with their asker (recorded on the conversation since the handoff rework)
  't:*:conv:*:transcript', // transcripts, with the handoff's turns
  't:*:conv:*:session',
  't:*:retry:*', // retry records
  't:*:seen:*', // dedupe keys
  't:*:recent:*', // recent keys
  't:*:feedback:vote:*', // feedback votes
  'ticket:*', // tickets
  't:*:discord:dm:*', // DM markers, in the DMs' part of the store
];

/** A key with its ids replaced by `*`: `conv:slack:T0:C1:1700.1:transcript` -> `conv:*:transcript`. */
function family(key: string): string {
  // A tenant's key (t:<kind>:<id>:...): the tenant is an id, the rest a family of its own.
  const tenant = /^t:[a-z]+:[^:]+:(.*)$/.exec(key);
  if (tenant) return `t:*:${family(tenant[1] ?? '')}`;
  const parts = key.split(':').map((p) => (/^[a-z][a-z._-]{0,23}$/.test(p) ? p : '*'));
  const out: string[] = [];
  for (const p of parts) if (!(p === '*' && out.at(-1) === '*')) out.push(p);
  // Surface names inside ids (conv:slack:T0...) are ids too.
  return out.join(':').replace(/^(conv|seen|recent|convasker|ticketthread|ticketmsg):(slack|discord|shell):/, '$1:');
}

interface Expiry {
  family: string;
  /** Remaining life in ms; null when the record never expires. */
  ttlMs: number | null;
}

function sqliteExpiries(path: string, now: number): Expiry[] {
  const db = new Database(path, { readonly: true });
  try {
    const out: Expiry[] = [];
    for (const r of db.prepare('SELECT key, expires_at FROM kv').all() as Array<{
      key: string;
      expires_at: number | null;
    }>)
      out.push({ family: family(r.key), ttlMs: r.expires_at === null ? null : r.expires_at - now });
    for (const r of db.prepare('SELECT queue, at FROM queue_items').all() as Array<{
      queue: string;
      at: number | null;
    }>)
      out.push({ family: `queue ${family(r.queue)}`, ttlMs: r.at === null ? null : r.at + RETENTION_MS - now });
    const outbox = db.prepare('SELECT box, at, done_until FROM outbox').all() as Array<{
      box: string;
      at: number | null;
      done_until: number | null;
    }>;
    for (const r of outbox) {
      const byActivity = r.at === null ? null : r.at + RETENTION_MS - now;
      const ttl = r.done_until === null ? byActivity : Math.min(r.done_until - now, byActivity ?? Infinity);
      out.push({ family: `outbox ${family(r.box)}`, ttlMs: ttl });
    }
    for (const r of db.prepare('SELECT key, at FROM rate_log').all() as Array<{ key: string; at: number }>)
      out.push({ family: `rate ${family(r.key)}`, ttlMs: r.at + RETENTION_MS - now });
    for (const r of db.prepare('SELECT name, expires_at FROM leases').all() as Array<{
      name: string;
      expires_at: number;
    }>)
      out.push({ family: `lease ${family(r.name)}`, ttlMs: r.expires_at - now });
    return out;
  } finally {
    db.close();
  }
}

async function redisExpiries(redis: Redis): Promise<Expiry[]> {
  const out: Expiry[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 500);
    for (const key of batch) {
      const ttl = await redis.pttl(key);
      if (ttl === -2) continue; // gone meanwhile
      // bridge:<structure>:<key...>: kv records by their key's family, the others by structure too.
      const [, structure, ...rest] = key.split(':');
      const name = family(rest.join(':'));
      out.push({ family: structure === 'kv' ? name : `${structure} ${name}`, ttlMs: ttl === -1 ? null : ttl });
    }
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** One line per family: how many records, the longest remaining life. */
function table(expiries: Expiry[]): string[] {
  const byFamily = new Map<string, { n: number; longest: number | null }>();
  for (const e of expiries) {
    const row = byFamily.get(e.family) ?? { n: 0, longest: 0 };
    row.n++;
    row.longest = row.longest === null || e.ttlMs === null ? null : Math.max(row.longest, e.ttlMs);
    byFamily.set(e.family, row);
  }
  return [...byFamily.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([f, r]) =>
        `${f.padEnd(40)} ${String(r.n).padStart(4)}  ${r.longest === null ? 'NEVER' : `${(r.longest / DAY_MS).toFixed(3)} d`}`,
    );
}

describe.each([['SQLite'], ['Redis']] as const)(
  'retention on %s: every key family expires within RETENTION_DAYS',
  (kind) => {
    // One app on a fresh store (a temp SQLite file, or Redis database 15) with Slack and Discord:
    // started together, closed in reverse, the store emptied after.
    const x = useStarted(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'retention-'));
      let redis: Redis | undefined;
      if (kind === 'Redis') {
        // Database 15 is this test's own: it starts empty, so every key listed is the scenario's.
        redis = new Redis(REDIS_URL);
        await redis.flushdb();
      }
      const slack = await new FakeSlack({
        users: { U0USER1: 'Ada Lovelace', U0AGENT: 'Agent Smith', U0ADMIN: 'Alan Admin' },
      }).start();
      slack.channelMembers[SLACK_HANDOFF] = ['U0AGENT'];
      const closeTheRest = async (): Promise<void> => {
        await slack.close();
        if (redis) {
          await redis.flushdb();
          redis.disconnect();
        }
        rmSync(dir, { recursive: true, force: true });
      };
      const e = await startDiscordE2E({
        env: {
          STATE_URL: kind === 'Redis' ? REDIS_URL : `sqlite:${join(dir, 'state.db')}`,
          RETENTION_DAYS: String(RETENTION_DAYS),
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_SIGNING_SECRET: SECRET,
          SLACK_API_URL: slack.apiUrl,
          SLACK_HANDOFF_CHANNEL: SLACK_HANDOFF,
          SLACK_ADMIN_USERS: 'U0ADMIN',
        },
      }).catch(async (err: unknown) => {
        await closeTheRest();
        throw err;
      });
      const driver = new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team);
      return {
        e,
        slack,
        driver,
        dir,
        redis,
        async close() {
          await e.close();
          await closeTheRest();
        },
      };
    });

    /** A person's message in a Slack thread (Events API). */
    const say = (channel: string, thread: string, user: string, text: string, tsPart: string) =>
      x.driver.event({
        type: 'message',
        channel,
        channel_type: 'channel',
        user,
        text,
        ts: `${Math.floor(Date.now() / 1000)}.${tsPart}`,
        thread_ts: thread,
      });

    test('a full scenario, then every key family listed with its expiry', async () => {
      const { e, slack, driver, dir, redis } = x;
      // Slack: the owner's settings, a question, a vote, a follow-up.
      await driver.command('/chatbot', 'set RateLimitCount 50', { user: 'U0ADMIN', channel: 'C0RSET' });
      const set = await waitFor(
        () =>
          slack.messages.find((m) => m.channel === 'C0RSET') ?? slack.ephemerals.find((m) => m.channel === 'C0RSET'),
        'the setting',
      );
      expect(set.text).toMatch(/^Set RateLimitCount to 50/);
      const question = 'Homes for rent in Denver? (retention)';
      await driver.command('/ask', question, { user: 'U0USER1', channel: 'C0RUSER' });
      const root = await waitFor(
        () => slack.channelMessages('C0RUSER').find((m) => m.text.includes(`> ${question}`)),
        'the Slack root',
      );
      const answered = await waitFor(() => {
        const msgs = slack.replies('C0RUSER', root.ts).filter((m) => m.user === slack.botUserId && !m.streaming);
        const last = msgs.at(-1);
        return last && button(last, 'Talk to a human') ? last : undefined;
      }, 'the Slack answer with its buttons');
      // A thumbs-up: Slack's feedback_buttons element on the answer (wherever its block puts it).
      const thumbs = slack
        .replies('C0RUSER', root.ts)
        .flatMap((m) =>
          (m.blocks as Array<{ elements?: unknown[] }>).flatMap((b) => b.elements ?? []).map((el) => ({ el, m })),
        )
        .find(({ el }) => (el as { type?: string }).type === 'feedback_buttons') as
        | { el: { action_id: string; positive_button: { value: string } }; m: { ts: string } }
        | undefined;
      expect(thumbs).toBeDefined();
      await driver.click(
        { action_id: thumbs!.el.action_id, value: thumbs!.el.positive_button.value },
        { channel: 'C0RUSER', messageTs: thumbs!.m.ts, threadTs: root.ts },
        { user: 'U0USER1' },
      );
      const follow = 'And with a garden? (retention)';
      await say('C0RUSER', root.ts, 'U0USER1', follow, '500001');
      const followAnswers = await waitFor(
        () => e.storedAnswers(follow).length > 0 && e.storedAnswers(follow),
        'the follow-up answered',
      );
      expect(followAnswers[0]!.length).toBeGreaterThan(0);
      const votes = await waitFor(
        () =>
          e.app.store.keys('t:slack:').then((all) => {
            const k = all.filter((x) => x.includes(':feedback:vote:'));
            return k.length > 0 && k;
          }),
        'the vote',
      );
      expect(votes).toHaveLength(1);
      await e.app.bridge.conversations.idle();

      // A handoff: the ticket claimed, a message relayed each way, closed.
      const talk = button(answered, 'Talk to a human')!;
      await driver.click(talk, { channel: 'C0RUSER', messageTs: answered.ts, threadTs: root.ts }, { user: 'U0USER1' });
      const ticket = await waitFor(
        () => slack.channelMessages(SLACK_HANDOFF).find((m) => button(m, 'Claim')),
        'the ticket',
      );
      await driver.click(
        button(ticket, 'Claim')!,
        { channel: SLACK_HANDOFF, messageTs: ticket.ts },
        { user: 'U0AGENT' },
      );
      const claimedTicket = await waitFor(() => {
        const now = slack.message(SLACK_HANDOFF, ticket.ts)!;
        return !button(now, 'Claim') && now;
      }, 'the claim');
      expect(claimedTicket.text).toMatch(/^Claimed by Agent Smith/);
      const userText = 'Can I visit tomorrow? (retention)';
      await say('C0RUSER', root.ts, 'U0USER1', userText, '600001');
      const toTicket = await waitFor(
        () => slack.replies(SLACK_HANDOFF, ticket.ts).find((m) => m.text.includes('visit tomorrow')),
        'user -> ticket',
      );
      expect(toTicket.text).toContain(userText);
      const agentText = 'Sure, 10am. (retention)';
      await say(SLACK_HANDOFF, ticket.ts, 'U0AGENT', agentText, '600002');
      const toUser = await waitFor(
        () => slack.replies('C0RUSER', root.ts).find((m) => m.text.includes('10am')),
        'agent -> user',
      );
      expect(toUser.text).toContain(agentText);
      const claimed = slack.message(SLACK_HANDOFF, ticket.ts)!;
      const close = button(claimed, /close/i);
      if (close) await driver.click(close, { channel: SLACK_HANDOFF, messageTs: ticket.ts }, { user: 'U0AGENT' });

      // Discord: a question in a thread and a DM.
      const dq = 'Condos for sale in Austin? (retention)';
      const { threadId } = await ask(e, dq);
      expect(await answerIn(e, threadId, dq)).toContain('condo for sale in Austin');
      const dm = e.fake.openDm(e.user);
      const dmq = 'Lofts in Miami? (retention DM)';
      e.fake.directMessage({ member: e.user, content: dmq });
      expect(await answerIn(e, dm.id, dmq)).toContain('homes in Miami');
      await e.app.bridge.conversations.idle();

      const expiries =
        kind === 'Redis' ? await redisExpiries(redis!) : sqliteExpiries(join(dir, 'state.db'), Date.now());
      const lines = table(expiries);
      // The list, for the record (and for whoever reads a failure).
      process.stdout.write(
        `\nKey families on ${kind} after the scenario (RETENTION_DAYS=${RETENTION_DAYS}):\n${lines.join('\n')}\n`,
      );
      const families = new Set(expiries.map((x) => x.family));
      for (const f of EXPECTED) expect({ family: f, present: families.has(f) }).toEqual({ family: f, present: true });
      const never = expiries.filter((x) => x.ttlMs === null).map((x) => x.family);
      expect([...new Set(never)]).toEqual([]);
      const tooLong = expiries.filter((x) => x.ttlMs !== null && x.ttlMs > RETENTION_MS + 1000).map((x) => x.family);
      expect([...new Set(tooLong)]).toEqual([]);
    }, 120_000);
  },
);
