/**
 * Our relay as the bridge runs it: Relay + BudgetScheduler on the state store the Slack port also
 * paces its posts with (one store per instance, as in the app), relaying into the Slack surface's port.
 */
import pino from 'pino';
import { BudgetScheduler } from '../../core/relay/scheduler';
import { Relay } from '../../core/relay/relay';
import type { SurfacePort } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { BenchAnswer, BenchRelay } from './common';

export class OurRelay implements BenchRelay {
  private readonly scheduler: BudgetScheduler;
  private readonly relayer: Relay;

  constructor(
    private readonly port: SurfacePort,
    private readonly store: StateStore,
    readonly name: string,
  ) {
    const log = pino({ level: process.env.BENCH_LOG ?? 'silent' });
    this.scheduler = new BudgetScheduler({ store: this.store, log });
    this.relayer = new Relay({ store: this.store, scheduler: this.scheduler, log, instanceId: 'bench' });
  }

  async relay(a: BenchAnswer): Promise<void> {
    const result = await this.relayer.run({
      surface: this.port,
      place: a.place,
      events: a.events,
      finalButtons: [{ action: 'handoff.request', label: 'Talk to a human', value: a.answerKey }],
      retry: { action: 'answer.retry', value: a.answerKey },
      idleTimeoutMs: 30_000,
      signal: a.signal,
      answerKey: a.answerKey,
    });
    if (result.status !== 'complete') throw new Error(`answer ${a.answerKey} interrupted: ${String(result.error)}`);
  }

  async close(): Promise<void> {
    this.scheduler.close();
  }
}
