/** Core's entry point: main.ts and tests build the Bridge here. */
import { Bridge, type BridgeDeps } from './bridge';
import type { CoreContext } from './context';

export { Bridge, type BridgeDeps } from './bridge';

export function createBridge(ctx: CoreContext, deps: BridgeDeps): Bridge {
  return new Bridge(ctx, deps);
}
