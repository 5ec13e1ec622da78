/**
 * Tickets in the state store: reading them, writing a change together with the notices it owes
 * (one atomic `compareAndSetWithIntents`), the conversation's handoff mark, and the keys that find
 * a ticket from its threads. No decisions are made here (decide.ts makes them).
 */
import type { Json, OutboxIntent, StateStore } from '../../state/store';
import type { TenantConfig } from '../context';
import { convKeys, legacyKeys, parseStored, toJson, type ConvRef } from '../conversations/model';
import { convView, readMoved } from '../conversations/records';
import { DEFAULT_RETENTION_MS } from '../conversations/transcript';
import type { MessageRef, Place } from '../surface';
import { isEnded, ticketConv, ticketKeys, ticketSchema, type Ticket } from './model';
import { NOTICE_BOX } from './notice';
import { noteLead } from './hours/leads-index';
import { sameTenant, scoped, scopedPrefix, tenantStore, type Tenant, type TenantStore } from '../../state/tenant-store';
import { recordedTenant, tenantOf } from '../tenants/tenant';

const CAS_ATTEMPTS = 10;

/**
 * The due index of open tickets (waiting and claimed), by when they were opened: the sweep reads
 * these, the live work, never every key of the store (the open marks were found by a scan).
 */
export const OPEN_TICKETS_INDEX = 'tickets-open';
/** Marks a store whose tickets were indexed by tenant, open and lead (the value: this layout's version). */
export const TICKETS_INDEXED_KEY = 'ticketsindexed';
const TICKETS_INDEXED = 2;
/** Leads whose day's digest may still be due (the digest covers the day before, two after a late start). */
const LEADS_BACK_MS = 3 * 24 * 3600 * 1000;
/** The store's tickets are all indexed (indexTenants, or a store this version wrote from the start). */
export async function markTicketsIndexed(store: StateStore, retentionMs: number): Promise<void> {
  await store.set(TICKETS_INDEXED_KEY, TICKETS_INDEXED, retentionMs);
}

/** Open tickets a sweep reads at most (oldest first). */
const OPEN_PER_SWEEP = 10_000;
/**
 * A ticket not yet handed its conversation (the step right after writing it) expires after this if a
 * crash strands it; once handed, its first change gives it the full retention. Long enough for a
 * bridge that crashed right after the hand-over to be back before the ticket would expire.
 */
const UNOPENED_TTL_MS = 24 * 3600 * 1000;

/** A ticket as read, with the raw value a compare-and-set must find unchanged. */
export interface ReadTicket {
  ticket: Ticket | undefined;
  raw: Json | undefined;
}

export class ContentionError extends Error {}

export class TicketStore {
  /** This process's indexTenants, shared by whoever meets it while it runs (indexTenantsOnce). */
  private indexing: Promise<void> | undefined;

  constructor(private readonly ctx: { store: StateStore; config: Pick<TenantConfig, 'retentionMs'>; now(): number }) {}

  /** RETENTION_DAYS after a ticket's last change, the ticket and the keys that find it expire. */
  get retentionMs(): number {
    return this.ctx.config.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async read(id: string): Promise<ReadTicket> {
    const raw = await this.ctx.store.get(ticketKeys.ticket(id));
    return { ticket: parseStored(ticketSchema, raw), raw };
  }

  async load(id: string): Promise<Ticket | undefined> {
    return (await this.read(id)).ticket;
  }

  /** The conversation's handoff mark (one from before the tenants' parts is moved into its tenant's). */
  private mark(conv: ConvRef): Promise<Json | undefined> {
    const { store } = this.ctx;
    return readMoved(
      store,
      convView(store, conv),
      convKeys.handoff(conv.id),
      legacyKeys.handoff(conv.id),
      this.retentionMs,
    );
  }

  /** The open or claimed ticket of a conversation, if it is in handoff. */
  async active(conv: ConvRef): Promise<Ticket | undefined> {
    const id = await this.mark(conv);
    if (typeof id !== 'string') return undefined;
    const ticket = await this.load(id);
    return ticket && !isEnded(ticket.status) ? ticket : undefined;
  }

  async idForThread(place: Place): Promise<string | undefined> {
    if (!place.thread) return undefined;
    const id = await this.ctx.store.get(ticketKeys.byThread(place));
    return typeof id === 'string' ? id : undefined;
  }

  /** Every stored ticket (the figures walk them), a stranded opening excluded. */
  async all(): Promise<Ticket[]> {
    const out: Ticket[] = [];
    for (const key of await this.ctx.store.keys(ticketKeys.prefix)) {
      const t = parseStored(ticketSchema, await this.ctx.store.get(key));
      if (t && !t.opening) out.push(t);
    }
    return out;
  }

  /**
   * The tickets of `tenants` (the queue and the figures of one tenant read these): found through each
   * tenant's own index, written with every change under the asker's tenant and the handoff channel's.
   */
  async of(tenants: Tenant[], which: 'open' | 'all'): Promise<Ticket[]> {
    const ids = new Set<string>();
    for (const t of tenants) {
      const view = tenantStore(this.ctx.store, t);
      const prefix = scopedPrefix(which === 'open' ? 'ticketopen' : 'ticket');
      for (const key of await view.keys(prefix)) ids.add(decodeURIComponent(key.slice(prefix.length)));
    }
    const out: Ticket[] = [];
    for (const id of ids) {
      const t = await this.load(id);
      if (t && !t.opening && (which === 'all' || !isEnded(t.status))) out.push(t);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Tickets written before each tenant had its own index (an upgrade) are indexed under their tenants
   * once per store (a mark says it was done; it lives as long as a ticket), when a bridge starts: the
   * queue and the figures of a tenant read only its index, the day's digest only its leads' index.
   * Not on every start: that walk read every ticket ever written (issue 38).
   */
  async indexTenants(): Promise<void> {
    if ((await this.ctx.store.get(TICKETS_INDEXED_KEY)) === TICKETS_INDEXED) return;
    const recent = this.ctx.now() - LEADS_BACK_MS;
    for (const t of await this.all()) {
      if (t.createdAt >= recent) await noteLead(this.ctx.store, t, this.retentionMs);
      const open = t.status === 'open' || t.status === 'claimed';
      for (const view of this.views(t)) {
        await view.setIfAbsent(scoped('ticket', t.id), 1, this.retentionMs);
        if (open) await view.setIfAbsent(scoped('ticketopen', t.id), 1, this.retentionMs);
      }
      // An open ticket of a version before the index joins it (the sweep reads the index only).
      if (open && (await this.ctx.store.get(ticketKeys.open(t.id))) !== undefined)
        await this.ctx.store.schedule(OPEN_TICKETS_INDEX, t.id, t.createdAt);
    }
    await markTicketsIndexed(this.ctx.store, this.retentionMs);
  }

  /**
   * indexTenants once per process: the notice drain and the sweep that meet it while it runs wait for
   * it rather than start another walk each (every tick of either began one while the first was still
   * reading: 200,000 commands a minute with 10,000 tickets, issue 38's bench). A failed walk is tried
   * again by the next caller.
   */
  indexTenantsOnce(): Promise<void> {
    this.indexing ??= this.indexTenants().catch((err: unknown) => {
      this.indexing = undefined;
      throw err;
    });
    return this.indexing;
  }

  /** The open tickets (waiting and claimed) of every tenant, oldest first: the sweep walks them. */
  async inProgress(): Promise<Ticket[]> {
    const open: Ticket[] = [];
    for (const id of await this.openIds()) {
      const t = await this.load(id);
      if (t && !isEnded(t.status)) open.push(t);
    }
    return open.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The ids of the open tickets, from their index; one no longer open (or gone) leaves it. */
  async openIds(): Promise<string[]> {
    const { store } = this.ctx;
    const ids: string[] = [];
    for (const { member } of await store.due(OPEN_TICKETS_INDEX, Number.MAX_SAFE_INTEGER, OPEN_PER_SWEEP)) {
      if ((await store.get(ticketKeys.open(member))) === undefined) await store.unschedule(OPEN_TICKETS_INDEX, member);
      else ids.push(member);
    }
    return ids;
  }

  /** A new ticket, short-lived until its conversation is marked (so no mark points to a ticket not written yet). */
  async create(ticket: Ticket): Promise<void> {
    await this.ctx.store.set(ticketKeys.ticket(ticket.id), toJson(ticket), UNOPENED_TTL_MS);
  }

  async discard(id: string): Promise<void> {
    await this.ctx.store.delete(ticketKeys.ticket(id));
  }

  /**
   * The one atomic step of a change: `next` replaces the ticket as it was read (`raw`), and the
   * notices' intents are written with it, or neither is. False when the ticket changed meanwhile.
   */
  async write(id: string, raw: Json | undefined, next: Ticket, intents: OutboxIntent[]): Promise<boolean> {
    // Only a ticket handed its conversation is ever changed: it is no longer in its opening.
    const { opening: _opening, ...written } = next;
    const ok = await this.ctx.store.compareAndSetWithIntents(
      ticketKeys.ticket(id),
      raw,
      toJson(written),
      this.retentionMs,
      NOTICE_BOX,
      intents,
    );
    if (ok) await this.touchLookups(written);
    return ok;
  }

  /** A record kept on the ticket (where its messages went), not a decision: `change` undefined leaves it. */
  async update(id: string, change: (t: Ticket) => Ticket | undefined): Promise<Ticket | undefined> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const { ticket, raw } = await this.read(id);
      if (!ticket) return undefined;
      const next = change(ticket);
      if (!next) return ticket;
      if (await this.write(id, raw, next, [])) return next;
    }
    throw new ContentionError(`ticket ${id}: could not update (contention)`);
  }

  /**
   * Points the conversation at `ticketId` together with the ticket's opening notices, unless it is
   * in handoff already. A mark left behind by an ended or vanished ticket does not count.
   */
  async markHandoff(conv: ConvRef, ticketId: string, intents: OutboxIntent[]): Promise<boolean> {
    const view = convView(this.ctx.store, conv);
    const key = convKeys.handoff(conv.id);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = attempt === 0 ? await this.mark(conv) : await view.get(key);
      if (current !== undefined) {
        const held = typeof current === 'string' ? await this.load(current) : undefined;
        if (held && !isEnded(held.status)) return false;
      }
      if (await view.compareAndSetWithIntents(key, current, ticketId, this.retentionMs, NOTICE_BOX, intents))
        return true;
    }
    return false;
  }

  /** An ended ticket no longer holds its conversation, and the sweep no longer walks it. */
  async clearMarks(ended: Ticket): Promise<void> {
    // Only this ticket's mark: a later handoff of the same thread has its own.
    const conv = ticketConv(ended);
    if ((await this.mark(conv)) === ended.id) await convView(this.ctx.store, conv).delete(convKeys.handoff(conv.id));
    await this.ctx.store.delete(ticketKeys.open(ended.id));
    await this.ctx.store.unschedule(OPEN_TICKETS_INDEX, ended.id);
    for (const view of this.views(ended)) await view.delete(scoped('ticketopen', ended.id));
  }

  /** The tenants a ticket belongs to: its asker's, and its handoff channel's (another, in a cross-surface handoff). */
  private views(t: Ticket): TenantStore[] {
    const tenants = [recordedTenant(t.userPlace), ...(t.root ? [tenantOf(t.root.place)] : [])];
    const unique = tenants.filter((x, i) => tenants.findIndex((y) => sameTenant(x, y)) === i);
    return unique.map((x) => tenantStore(this.ctx.store, x));
  }

  /** The ticket message is posted: the ticket, and the keys that find it from its thread, say where. */
  async posted(ticketId: string, root: MessageRef, thread: Place, ticketLink: string | undefined): Promise<void> {
    // Before the ticket: a crash between the two writes must not leave the ticket unfindable.
    await this.ctx.store.set(ticketKeys.byThread(thread), ticketId, this.retentionMs);
    await this.ctx.store.set(ticketKeys.byMessage(root), ticketId, this.retentionMs);
    await this.update(ticketId, (t) =>
      t.root ? undefined : { ...t, root, thread, ...(ticketLink ? { ticketLink } : {}) },
    );
  }

  /** Every change restarts the retention of the keys that lead to the ticket, not only of the ticket. */
  private async touchLookups(t: Ticket): Promise<void> {
    const ttl = this.retentionMs;
    if (t.thread) await this.ctx.store.set(ticketKeys.byThread(t.thread), t.id, ttl);
    if (t.root) await this.ctx.store.set(ticketKeys.byMessage(t.root), t.id, ttl);
    const open = t.status === 'open' || t.status === 'claimed';
    for (const view of this.views(t)) {
      await view.set(scoped('ticket', t.id), 1, ttl);
      if (open) await view.set(scoped('ticketopen', t.id), 1, ttl);
    }
    if (open) {
      // Its lead, for the day's digest (hours/leads-index.ts): again with each change, a no-op once there.
      await noteLead(this.ctx.store, t, ttl);
      await this.ctx.store.schedule(OPEN_TICKETS_INDEX, t.id, t.createdAt);
      await this.ctx.store.set(ticketKeys.open(t.id), 1, ttl);
      const conv = ticketConv(t);
      await convView(this.ctx.store, conv).set(convKeys.handoff(conv.id), t.id, ttl);
    }
  }
}
