/**
 * What a deployment that a thousand offices installed a year ago holds, written as the bridge writes
 * it: each workspace's installation through the bridge's installation store (the store Bolt's OAuth
 * flow calls, `storeInstallation`, sealed with the state encryption key), and a year of closed
 * handoff tickets (the leads history: each ticket, its tenant's index, its thread lookups, its
 * conversation's lead facts), with the leads of the last days in the digest's indexes as the ticket
 * store leaves them. Nothing here is read back by the bench: the bridge instance reads it.
 */
import type { AnyInstallation } from '../../src/surfaces/slack/oauth/installations';
import { SlackInstallations } from '../../src/surfaces/slack/oauth/installations';
import { convKeys, convRef, toJson } from '../../src/core/conversations/model';
import { convView } from '../../src/core/conversations/records';
import { noteLead } from '../../src/core/handoff/hours/leads-index';
import { ticketKeys, type Ticket } from '../../src/core/handoff/model';
import { markTicketsIndexed } from '../../src/core/handoff/tickets';
import type { SecretBox } from '../../src/state/secret-box';
import type { StateStore } from '../../src/state/store';
import { scoped, tenantFor, tenantStore } from '../../src/state/tenant-store';

const DAY_MS = 24 * 3600 * 1000;
const YEAR_MS = 365 * DAY_MS;
/** Writes in flight at once while seeding (the client pipelines them). */
const BATCH = 200;
const CITIES = ['Austin', 'Denver', 'Seattle', 'Miami', 'Boston'];

export interface SeedOptions {
  /** Workspaces to install through the installation store (those the OAuth flow installs are not here). */
  teams: string[];
  /** Every workspace whose askers have tickets (these and those installed through the flow). */
  ticketTeams: string[];
  ticketsPerTeam: number;
  now: number;
  retentionMs: number;
}

export interface Seeded {
  installations: number;
  tickets: number;
  /** Tickets recent enough for a digest still due: in the digest's indexes. */
  recentLeads: number;
  ms: number;
}

/** An installation as Slack's SDK hands it to `storeInstallation` after "Add to Slack" (bot token, no rotation). */
function installationOf(team: string, n: number): AnyInstallation {
  return {
    team: { id: team, name: `Office ${team}` },
    enterprise: undefined,
    user: { id: `U0OWNER${n}`, token: undefined, scopes: undefined },
    bot: {
      token: `xoxb-seeded-${team}`,
      userId: 'U0BRIDGEBOT',
      id: 'B0BRIDGEBOT',
      scopes: ['chat:write', 'commands', 'channels:history'],
    },
    tokenType: 'bot',
    isEnterpriseInstall: false,
    appId: 'A0BENCH',
    authVersion: 'v2',
  } as AnyInstallation;
}

async function inBatches<T>(items: T[], write: (item: T, index: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) {
    await Promise.all(items.slice(i, i + BATCH).map((item, j) => write(item, i + j)));
  }
}

/** A closed ticket of `team`, `ageMs` old: claimed, answered, rated, as a day's work leaves it. */
function ticketOf(team: string, n: number, createdAt: number): Ticket {
  const place = {
    surface: 'slack' as const,
    workspace: team,
    channel: 'C0LEADS',
    thread: `${createdAt / 1000}.000100`,
  };
  const root = {
    place: { surface: 'slack' as const, workspace: team, channel: 'C0HANDOFF' },
    id: `${createdAt / 1000}.000200`,
  };
  const agent = { id: 'U0AGENT', name: 'Agent Smith', isAdmin: false };
  return {
    id: `${team}-lead-${n}`,
    convId: `slack:${team}:C0LEADS:${place.thread}`,
    status: 'closed',
    user: { id: `U0ASKER${n}`, name: `Asker ${n}`, isAdmin: false },
    userPlace: place,
    reason: `Please call me about ${CITIES[n % CITIES.length]}`,
    createdAt,
    root,
    thread: { ...root.place, thread: root.id },
    claimedBy: agent,
    claimedAt: createdAt + 60_000,
    firstClaimedAt: createdAt + 60_000,
    firstReplyAt: createdAt + 120_000,
    endedBy: agent,
    endedAt: createdAt + 900_000,
    rating: 1 + (n % 5),
    ratedAt: createdAt + 960_000,
  };
}

/** The ticket's records as the ticket store writes them, each living RETENTION_DAYS after the ticket's last change. */
async function writeTicket(store: StateStore, t: Ticket, o: SeedOptions): Promise<boolean> {
  const ttl = o.retentionMs - (o.now - (t.ratedAt ?? t.createdAt));
  if (ttl <= 0) return false;
  const tenant = tenantStore(store, tenantFor('slack', t.userPlace.workspace));
  const conv = convRef({ id: t.convId, place: t.userPlace });
  await Promise.all([
    store.set(ticketKeys.ticket(t.id), toJson(t), ttl),
    tenant.set(scoped('ticket', t.id), 1, ttl),
    store.set(ticketKeys.byThread(t.thread!), t.id, ttl),
    store.set(ticketKeys.byMessage(t.root!), t.id, ttl),
    convView(store, conv).set(
      convKeys.lead(t.convId),
      { emails: [`asker${t.id.length}@example.com`], phones: [], listings: [], city: t.reason.split(' ').at(-1) ?? '' },
      ttl,
    ),
  ]);
  // What the ticket store indexed for the digest while the ticket was open: the last days' leads.
  if (o.now - t.createdAt < 3 * DAY_MS) await noteLead(store, t, o.retentionMs);
  return true;
}

export async function seed(store: StateStore, box: SecretBox, o: SeedOptions): Promise<Seeded> {
  const started = Date.now();
  const installs = new SlackInstallations(store, box, () => o.now).asInstallationStore(async () => undefined);
  await inBatches(o.teams, (team, i) => installs.storeInstallation(installationOf(team, i)));
  const tickets: Ticket[] = [];
  for (const team of o.ticketTeams) {
    for (let n = 0; n < o.ticketsPerTeam; n++) {
      // Spread over the year before the last 3 days: every day's digest is past (an idle deployment).
      const spread = ((tickets.length * 7919) % 1000) / 1000;
      tickets.push(ticketOf(team, n, o.now - Math.round(3 * DAY_MS + spread * (YEAR_MS - 3 * DAY_MS))));
    }
  }
  let written = 0;
  await inBatches(tickets, async (t) => {
    if (await writeTicket(store, t, o)) written++;
  });
  // A store this version wrote all along: its tickets are indexed (no walk over them at start).
  await markTicketsIndexed(store, o.retentionMs);
  const recentLeads = tickets.filter((t) => o.now - t.createdAt < 3 * DAY_MS).length;
  return { installations: o.teams.length, tickets: written, recentLeads, ms: Date.now() - started };
}
