/**
 * The scope a `/ask` request was served with, held for the answer to the question it queued. When
 * this instance takes that very item itself (it usually does, a moment later), the answer is made in
 * the request's scope and with the conversation record the request has just written, instead of
 * reading them again (the tenant's org mark, its connection's stamp, the record: three store reads).
 *
 * Why that is safe: the answer belongs to the request, as an answer already streaming does, so a
 * disconnect, a rotated key or an uninstall that lands after the `/ask` was taken applies from the
 * next request on, never to half of this one (a tenant that leaves still stops it: its work is
 * checked on its own, tenants/leave.ts). The hold is narrow: one use, only for that conversation and
 * message, only within HOLD_MS of the request (the bridge's clock); any other item, a later try of
 * this one, or another instance builds its scope from the store as before.
 */
import { sameTenant } from '../../state/tenant-store';
import type { TenantScope } from '../context';
import type { Conversation, ConvRef } from './model';

/** Longer than a busy queue's wait for its first item, far shorter than any user's next step. */
const HOLD_MS = 30_000;
/** More than the `/ask`s one instance takes at once, many times over. */
const MAX_HELD = 1000;

interface Held {
  scope: TenantScope;
  conv: Conversation;
  /** The request made the conversation (FreshConversations): nothing of it but its record exists yet. */
  newConversation: boolean;
  at: number;
}

/** What a held ask gives the answer to its question. */
export interface HeldAsk {
  scope: TenantScope;
  conv: Conversation;
  /**
   * The conversation has no chat session yet: the request made it and this is its item's first try
   * on any instance (the started mark's count), so no earlier try can have opened one.
   */
  noSessionYet: boolean;
}

export class AskedScopes {
  private readonly held = new Map<string, Held>();

  constructor(private readonly now: () => number) {}

  /** Holds `scope` for the item `msgId` of `conv` (when the scope is the conversation's tenant's). */
  hold(scope: TenantScope, conv: Conversation, ref: ConvRef, msgId: string, newConversation: boolean): void {
    if (!sameTenant(scope.tenant, ref.tenant)) return;
    const at = this.now();
    for (const [key, h] of this.held) if (at - h.at > HOLD_MS || this.held.size >= MAX_HELD) this.held.delete(key);
    this.held.set(AskedScopes.key(ref, msgId), { scope, conv, newConversation, at });
  }

  /** The scope and record held for this item (`tries`: its started mark's), once; undefined when none is (or too old). */
  take(ref: ConvRef, msgId: string, tries: number): HeldAsk | undefined {
    const key = AskedScopes.key(ref, msgId);
    const h = this.held.get(key);
    if (!h) return undefined;
    this.held.delete(key);
    const age = this.now() - h.at;
    if (age < 0 || age > HOLD_MS || !sameTenant(h.scope.tenant, ref.tenant)) return undefined;
    return { scope: h.scope, conv: h.conv, noSessionYet: h.newConversation && tries === 1 };
  }

  get size(): number {
    return this.held.size;
  }

  private static key(ref: ConvRef, msgId: string): string {
    return `${ref.tenant.surface}\n${ref.tenant.id}\n${ref.id}\n${msgId}`;
  }
}
