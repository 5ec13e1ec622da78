/**
 * The capabilities a surface hands over where its platform has none (SurfacePort.budgets,
 * .directory, .status): core calls them without asking first whether they are there.
 */
import type { BudgetPort, DirectoryPort, StatusPort } from './surface';

/** A surface without budgets to plan: nothing to reserve, no wait for first words. */
export const NO_BUDGETS: BudgetPort = {
  reserveFinal: () => () => undefined,
  promote: () => undefined,
  firstWordsWaitMs: 0,
};

/** A surface whose platform can tell nothing cheaply: every answer is "unknown". */
export const NO_DIRECTORY: DirectoryPort = {
  permalink: async () => undefined,
  channelName: async () => undefined,
  isMember: async () => undefined,
  // Nothing to check against: a channel named is taken as it is.
  cannotPostIn: async () => undefined,
  channelAgents: async () => undefined,
  mentionGroup: () => undefined,
  stripButtons: async () => undefined,
};

/** A surface with no status line. */
export const NO_STATUS: StatusPort = { setStatus: async () => undefined };
