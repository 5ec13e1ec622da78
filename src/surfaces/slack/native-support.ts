/**
 * Whether a workspace offers Slack's native streaming, learnt from the first refusal and remembered.
 *
 * Under load many answers start at once; if each asked Slack, a workspace without native streaming
 * would refuse as many chat.startStream calls as answers in flight (20 at once were measured). So
 * until a start has gone through in a workspace, starts there are single-flight: one goes out (the
 * probe), the others wait for its outcome. A refusal is kept for NO_NATIVE_RETRY_MS here and in the
 * state store, so the other instances sharing that store skip the probe too.
 */
import type { Logger } from 'pino';
import type { StateStore } from '../../state/store';
import { readMoving, writeMoving } from '../../state/moved-records';
import { NATIVE_REFUSED, slackRecords, slackStoreKey } from './records';

/** The store key of the workspace's refusal (tests read it). */
export const nativeRefusalKey = (team: string): string => slackStoreKey(team, NATIVE_REFUSED);

/** How long a workspace that refused native streaming is not asked again. */
export const NO_NATIVE_RETRY_MS = 30 * 60 * 1000;

/** How one attempted start ended: `works`, `refused` (native streaming unavailable), `unknown`. */
export type StartOutcome = 'works' | 'refused' | 'unknown';

/** Leave to try a native start in a workspace; `settle` reports how it went (the first report counts). */
export interface NativeAdmission {
  settle(outcome: StartOutcome): void;
}

export interface NativeSupportDeps {
  store: StateStore;
  log: Logger;
  now?: () => number;
}

/** The state store key of a workspace's refusal (the instances sharing the store read it). */

/**
 * Kept in this process too, as a latency copy: the refusal is in the store for the other instances
 * (they read it before their own probe), and `works` and the refusal are learnt again from Slack's
 * answer to a start. Keyed by workspace, naming no user or channel, one entry per installed
 * workspace, and dropped by `forget` when the workspace leaves (a re-install may stream natively).
 */
export class NativeSupport {
  /** Workspaces that refused native streaming, until when. */
  private readonly off = new Map<string, number>();
  /** Workspaces where a start went through: no probe needed there. */
  private readonly works = new Set<string>();
  /** Per workspace: the probe in flight, resolved when its start is settled. */
  private readonly probes = new Map<string, Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly deps: NativeSupportDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The workspace left: what it offered is learnt again after a re-install (its stored refusal goes with its keys). */
  forget(team: string): void {
    this.off.delete(team);
    this.works.delete(team);
  }

  /** True while `team` is known to have refused native streaming. */
  refused(team: string): boolean {
    const until = this.off.get(team);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.off.delete(team);
    return false;
  }

  /**
   * Leave to try a native start in `team`, or undefined when the workspace refused native
   * streaming. Waits for a probe in flight there; an inconclusive probe (a 429, a network error)
   * hands the probe to the next waiter.
   */
  async admit(team: string): Promise<NativeAdmission | undefined> {
    for (;;) {
      if (this.refused(team)) return undefined;
      if (this.works.has(team)) return this.once((o) => this.learn(team, o));
      const inFlight = this.probes.get(team);
      if (!inFlight) return this.probe(team);
      await inFlight;
    }
  }

  /** This caller's start is the workspace's probe (registered before anything is awaited). */
  private async probe(team: string): Promise<NativeAdmission | undefined> {
    let done: () => void = () => undefined;
    this.probes.set(
      team,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    const { settle } = this.once((outcome) => {
      this.learn(team, outcome);
      this.probes.delete(team);
      done();
    });
    // Another instance may have learnt it already.
    const r = slackRecords.nativeRefused(this.deps.store, team);
    const until = await readMoving(this.deps.store, r.view, r.key, r.legacy, NO_NATIVE_RETRY_MS).catch(() => undefined);
    if (typeof until === 'number' && until > this.now()) {
      this.off.set(team, until);
      settle('unknown');
      return undefined;
    }
    return { settle };
  }

  private once(report: (outcome: StartOutcome) => void): NativeAdmission {
    let settled = false;
    return {
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        report(outcome);
      },
    };
  }

  private learn(team: string, outcome: StartOutcome): void {
    if (outcome === 'works') this.works.add(team);
    if (outcome !== 'refused') return;
    this.works.delete(team);
    const until = this.now() + NO_NATIVE_RETRY_MS;
    this.off.set(team, until);
    const r = slackRecords.nativeRefused(this.deps.store, team);
    writeMoving(this.deps.store, r.view, r.key, r.legacy, until, NO_NATIVE_RETRY_MS).catch((err: unknown) => {
      // Only the other instances lose: they learn it from their own first refusal.
      this.deps.log.warn({ err, team }, 'slack: could not store the native streaming refusal');
    });
  }
}
