/** Core's entry point: main.ts and tests build the Bridge here. */
import { Bridge, type BridgeDeps } from './bridge';
import type { CoreContext } from './context';

export { Bridge, type BridgeDeps, type BridgeRelay } from './bridge';
export { Conversations, ANSWER_RETRY_ACTION } from './conversations/engine';
export { Handoffs } from './handoff/handoffs';
export { HANDOFF_ACTIONS } from './handoff/model';

export function createBridge(ctx: CoreContext, deps: BridgeDeps): Bridge {
  return new Bridge(ctx, deps);
}
