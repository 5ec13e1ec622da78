/**
 * The scale-out bench's figures: what a run reports, the takeover times read from the surviving
 * instances' logs, and the table the bench prints (and the README shows).
 */
import { percentile } from '../relay-bench';
import type { BridgeInstance, Memory } from './instances';

export interface ScaleOptions {
  instances: number;
  answers: number;
  channels: number;
  workspaces: number;
  /** Pause between the service's answer fragments (how long an answer streams). */
  fragmentDelayMs: number;
  streaming: 'on' | 'unknown_method';
  /** Seconds an instance's lease lasts (INSTANCE_LEASE_S; unset: the bridge's default). */
  leaseS?: string;
  /** How long to wait for every answer to settle before giving up on the rest. */
  settleTimeoutMs: number;
}

export interface ScaleReport {
  options: ScaleOptions;
  answers: number;
  exact: number;
  /** Each workspace (installed through the OAuth flow): its answers, exact, marked interrupted. */
  perWorkspace: Array<{ team: string; answers: number; exact: number; interrupted: number }>;
  /** Answers not on the killed instance, and how many of those were exact. */
  survivorAnswers: number;
  survivorExact: number;
  /** The killed instance's answers unsettled when it died: completed, marked interrupted, neither. */
  takenOver: { total: number; completed: number; interrupted: number; unsettled: number };
  /** Kill to the call that settled each of them (ms). */
  takeoverP50Ms: number | null;
  takeoverMaxMs: number | null;
  /**
   * From the survivors' logs, per marked answer: kill to the sweep that found its lease lapsed (the
   * lease's part), and found to marked (the marking edits waiting for the workspace's budget).
   */
  foundP50Ms: number | null;
  foundMaxMs: number | null;
  markingP50Ms: number | null;
  markingMaxMs: number | null;
  rateLimited: number;
  finalLagP50Ms: number | null;
  finalLagP95Ms: number | null;
  /** From the `/ask` to the final shown (queueing for the workspace's budget included). */
  askToFinalP50Ms: number | null;
  askToFinalP95Ms: number | null;
  duplicates: number;
  memory: Array<{ instance: string; killed: boolean } & Partial<Memory>>;
  redisCommands: number;
  redisCommandsPerAnswer: number;
  lost: { queueItems: number; inflightRecords: number; questionsNeverAsked: number };
  /** Mean answer length and stream time (from the service's records). */
  answerChars: number;
  streamMs: number;
  /** Asks never settled: their question, roots posted, and whether the service got the question. */
  unsettled: Array<{ question: string; roots: number; serviceGot: boolean }>;
  /** Survivors' warnings that an item started by the dead instance was left to recovery. */
  leftToRecovery: number;
  /** `/ask` requests not acknowledged with 200 (through the proxy). */
  refusedAsks: number;
  killAtMs: number;
  runMs: number;
}

/** The survivors' "marked an abandoned answer interrupted" lines: when each lapsed lease was found, and marked. */
export function markTimes(
  instances: BridgeInstance[],
  victim: BridgeInstance,
  killedAt: number,
): Pick<ScaleReport, 'foundP50Ms' | 'foundMaxMs' | 'markingP50Ms' | 'markingMaxMs'> {
  const lines = instances
    .filter((i) => i !== victim)
    .flatMap((i) => i.logged('marked an abandoned answer interrupted'))
    .filter((l) => l.owner === victim.name && typeof l.foundAt === 'number' && typeof l.markedAt === 'number');
  const found = lines.map((l) => (l.foundAt as number) - killedAt);
  const marking = lines.map((l) => (l.markedAt as number) - (l.foundAt as number));
  return {
    foundP50Ms: percentile(found, 50),
    foundMaxMs: percentile(found, 100),
    markingP50Ms: percentile(marking, 50),
    markingMaxMs: percentile(marking, 100),
  };
}

const ms = (v: number | null): string => (v === null ? 'never' : `${v} ms`);

/** The figures as the bench prints them (and the README shows them). */
export function formatScaleReport(x: ScaleReport): string {
  const o = x.options;
  const t = x.takenOver;
  const rows: Array<[string, string]> = [
    [
      'setting',
      `${o.instances} instances, ${o.workspaces} workspace(s) installed through the OAuth flow, ${x.answers} answers over ${o.channels} channels, native streaming ${o.streaming}`,
    ],
    [
      'answers',
      `about ${x.answerChars} characters streamed over about ${x.streamMs} ms; instance killed at ${x.killAtMs} ms`,
    ],
    ['answers exact (not on the killed instance)', `${x.survivorExact} / ${x.survivorAnswers}`],
    [
      'per workspace: exact / interrupted / answers',
      x.perWorkspace.map((w) => `${w.team} ${w.exact} / ${w.interrupted} / ${w.answers}`).join(', '),
    ],
    [
      'killed instance: answers unsettled at the kill',
      `${t.total}: ${t.completed} completed, ${t.interrupted} marked interrupted (text + Retry), ${t.unsettled} neither`,
    ],
    [
      '  kill to completed/marked, p50 / max',
      t.total === 0 ? 'none to take over' : `${ms(x.takeoverP50Ms)} / ${ms(x.takeoverMaxMs)}`,
    ],
    ['  of which: kill to lease found lapsed, p50 / max', `${ms(x.foundP50Ms)} / ${ms(x.foundMaxMs)}`],
    ['  of which: found to marked (budget wait), p50 / max', `${ms(x.markingP50Ms)} / ${ms(x.markingMaxMs)}`],
    ['429s', String(x.rateLimited)],
    ['final lag p50 / p95 (stream end to final shown)', `${ms(x.finalLagP50Ms)} / ${ms(x.finalLagP95Ms)}`],
    ['/ask to final p50 / p95 (exact answers)', `${ms(x.askToFinalP50Ms)} / ${ms(x.askToFinalP95Ms)}`],
    ['duplicate posts', String(x.duplicates)],
    [
      'RSS per instance (now / peak)',
      x.memory
        .map((m) => `${m.instance}${m.killed ? ' (killed)' : ''} ${m.rssMb ?? '?'} / ${m.peakRssMb ?? '?'} MB`)
        .join(', '),
    ],
    ['Redis commands per answer', `${x.redisCommandsPerAnswer} (${x.redisCommands} in all)`],
    [
      'lost',
      `${x.lost.queueItems} queue items, ${x.lost.inflightRecords} in-flight records, ${x.lost.questionsNeverAsked} questions never asked; ${x.refusedAsks} /ask refused`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}
