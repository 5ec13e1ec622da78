/**
 * Our relay as the bridge runs it: the Relay on the state store the Slack surface's gateway spends
 * its budgets in (one store per instance, as in the app), relaying into the Slack surface's port.
 */
import pino from 'pino';
import { Relay } from '../../src/core/relay/relay';
import type { SurfacePort } from '../../src/core/surface';
import type { StateStore } from '../../src/state/store';
import type { BenchAnswer, BenchRelay } from './common';

export class OurRelay implements BenchRelay {
  private readonly relayer: Relay;

  constructor(
    private readonly port: SurfacePort,
    private readonly store: StateStore,
    readonly name: string,
  ) {
    const log = pino({ level: process.env.BENCH_LOG ?? 'silent' });
    this.relayer = new Relay({ store: this.store, log, now: Date.now, instanceId: 'bench' });
  }

  async relay(a: BenchAnswer): Promise<void> {
    const result = await this.relayer.run({
      surface: this.port,
      place: a.place,
      events: a.events,
      finalButtons: [{ action: 'handoff.request', label: 'Talk to a human', value: a.answerKey }],
      retry: { action: 'answer.retry', value: a.answerKey },
      native: this.port.streaming !== undefined,
      signal: a.signal,
      answerKey: a.answerKey,
    });
    if (result.status !== 'complete') throw new Error(`answer ${a.answerKey} interrupted: ${String(result.error)}`);
  }

  async close(): Promise<void> {
    // The port (and its gateway) is closed by the bench.
  }
}
