/** A conversation's records as core keeps them: in its tenant's part of the store (model.ts's `convKeys`). */
import { convRefAt } from '../../src/core/conversations/model';
import { convView } from '../../src/core/conversations/records';
import type { Place } from '../../src/core/surface';
import type { StateStore } from '../../src/state/store';
import type { TenantStore } from '../../src/state/tenant-store';

/** The view of the tenant whose part holds the records of the conversation at `place`. */
export function convStore(store: StateStore, place: Place): TenantStore {
  return convView(store, convRefAt(place));
}
