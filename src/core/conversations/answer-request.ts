import type { Actor, BridgeRequest, SurfacePort } from '../surface';
import { requestTenant } from '../tenants/tenant';
import type { Conversation } from './model';

/**
 * The request a queue item is answered under, on whichever instance takes it: the item's actor, in
 * the conversation's thread, for the conversation's asker (stored with it; the actor on records
 * from before the asker was kept).
 */
export function answerRequest(conv: Conversation, surface: SurfacePort, actor: Actor): BridgeRequest {
  const asker = conv.asker ?? actor;
  return {
    tenant: requestTenant(conv.place),
    surface,
    place: conv.place,
    actor,
    for: { id: asker.id, name: asker.name },
  };
}
