/**
 * The scope core hands a request of `tenant` (src/core/tenants/scope.ts), for tests that call a
 * handler or a scoped helper directly: the tenant's chatbot as the bridge would choose it.
 */
import type { CoreContext, TenantScope } from '../../src/core/context';
import { scopeOf } from '../../src/core/tenants/scope';
import { requestTenant } from '../../src/core/tenants/tenant';
import type { Place } from '../../src/core/surface';

export async function scopeAt(ctx: CoreContext, place: Pick<Place, 'surface' | 'workspace'>): Promise<TenantScope> {
  const scope = await scopeOf(ctx, requestTenant(place));
  if (!scope) throw new Error(`no chatbot serves ${place.surface} ${place.workspace}`);
  return scope;
}
