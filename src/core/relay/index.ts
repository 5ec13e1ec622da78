export { BudgetScheduler } from './scheduler';
export { Relay } from './relay';
