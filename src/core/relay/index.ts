export { splitForLimit, splitIntoAtLeast, nextCut, findFences } from './split';
export { BudgetScheduler, SchedulerClosedError } from './scheduler';
export type { Priority, SchedulerOptions, RunOptions } from './scheduler';
export { Relay } from './relay';
export type { RelayRequest, RelayResult, RelayDeps, RelayOptions } from './relay';
export {
  recoverAbandonedAnswers,
  startRecoveryLoop,
  interruptedNotice,
  interruptedMessage,
  retryButton,
  inflightKey,
  inflightLease,
  inflightRecordSchema,
  LEASE_TTL_MS,
  LEASE_RENEW_MS,
} from './inflight';
export type { InflightRecord, RecoveryDeps, RecoveryOptions } from './inflight';
