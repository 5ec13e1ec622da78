/**
 * The setup the relay tests share: one in-memory store, relays on it, and TestSurfaces whose
 * gateways (when given budgets) spend them in that store; `close` stops them all.
 */
import { Relay, type RelayOptions, type RelayRequest, type RelayResult } from '../../../src/core/relay/relay';
import type { Place } from '../../../src/core/surface';
import { TEST_SURFACE } from '../../support/test-surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { TestSurface, type TestSurfaceOptions } from '../../support/test-surface';
import { FakeAnswerStream, silentLog } from './fake-stream';

export class RelayTestbed {
  readonly store = new SqliteStore(':memory:');
  private readonly surfaces: TestSurface[] = [];

  relay(instanceId: string, options: RelayOptions = {}): Relay {
    return new Relay({ store: this.store, log: silentLog, now: Date.now, instanceId, options });
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

let runs = 0;

/**
 * The arrange step the relay tests share: `relay` answering on a fresh stream (the test drives it)
 * into a new thread of `surface`, with no final buttons and natively where the surface can.
 */
export function startRun(
  relay: Relay,
  surface: TestSurface,
  req: Pick<RelayRequest, 'answerKey' | 'retry'> & Partial<RelayRequest>,
): { stream: FakeAnswerStream; place: Place; running: Promise<RelayResult> } {
  const stream = new FakeAnswerStream();
  const place: Place = req.place ?? { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: `T${++runs}` };
  const running = relay.run({
    surface,
    place,
    events: stream,
    finalButtons: [],
    native: surface.streaming !== undefined,
    ...req,
  });
  return { stream, place, running };
}
