/**
 * The setup the relay tests share: one in-memory store, relays on it, and TestSurfaces whose
 * gateways (when given budgets) spend them in that store; `close` stops them all.
 */
import { Relay, type RelayOptions } from '../../../src/core/relay/relay';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { TestSurface, type TestSurfaceOptions } from '../../support/test-surface';
import { silentLog } from './fake-stream';

export class RelayTestbed {
  readonly store = new SqliteStore(':memory:');
  private readonly surfaces: TestSurface[] = [];

  relay(instanceId: string, options: RelayOptions = {}): Relay {
    return new Relay({ store: this.store, log: silentLog, instanceId, options });
  }

  /** A surface on this store (its budgets' tokens live there). */
  surface<S extends TestSurface = TestSurface>(opts: TestSurfaceOptions = {}, make?: (o: TestSurfaceOptions) => S): S {
    const o = { store: this.store, ...opts };
    const s = make ? make(o) : (new TestSurface(o) as S);
    this.surfaces.push(s);
    return s;
  }

  async close(): Promise<void> {
    for (const s of this.surfaces.splice(0)) await s.close();
    await this.store.close();
  }
}

/** A fresh RelayTestbed for each test of the file (closed after it), read through this stand-in. */
export function eachTestbed(): RelayTestbed {
  let bed: RelayTestbed | undefined;
  beforeEach(() => {
    bed = new RelayTestbed();
  });
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });
  return new Proxy({} as RelayTestbed, {
    get(_target, prop) {
      if (!bed) throw new Error(`read ${String(prop)} of the relay testbed outside a test`);
      const value: unknown = Reflect.get(bed, prop, bed);
      return typeof value === 'function' ? value.bind(bed) : value;
    },
  });
}
