/**
 * How the app is distributed, which decides the limits Slack puts on reading history back
 * (`conversations.history` and `conversations.replies`). Since 29 May 2025 (existing installs since
 * 3 March 2026) a commercially distributed app outside the Marketplace may call them once a minute per
 * workspace, 15 messages at most; internal (customer-built) and Marketplace apps keep Tier 3.
 *
 * The bridge never depends on reading history (it records the messages it posted that carry
 * buttons, button-records.ts); the one read left (a thread from before those records) goes through
 * this budget, without waiting for it.
 */
export const SLACK_DISTRIBUTIONS = ['internal', 'marketplace', 'distributed'] as const;
export type SlackDistribution = (typeof SLACK_DISTRIBUTIONS)[number];

/** A history read's budget per workspace, and the most messages one read asks for. */
export interface HistoryLimits {
  limit: number;
  windowMs: number;
  maxMessages: number;
}

/**
 * The limits of each distribution. Internal and Marketplace apps may read more, but the bridge
 * never needs more than a thread's last 15 messages (the recent answers carry the buttons).
 */
export const HISTORY_LIMITS: Record<SlackDistribution, HistoryLimits> = {
  internal: { limit: 50, windowMs: 60_000, maxMessages: 15 },
  marketplace: { limit: 50, windowMs: 60_000, maxMessages: 15 },
  distributed: { limit: 1, windowMs: 60_000, maxMessages: 15 },
};

/** SLACK_DISTRIBUTION unset: OAuth mode ("Add to Slack", installed by many workspaces) is distributed. */
export function defaultDistribution(oauth: boolean): SlackDistribution {
  return oauth ? 'distributed' : 'internal';
}
