/**
 * `/analytics`' trend: step by step over the period (a day; a few days when the period is long), the
 * conversations, the handoffs opened and the votes cast. Every count is the tenant's own, narrowed as
 * the figures are: the conversations are the service's overview of the tenant's own chatbot, asked
 * per step (the service has no per-day figure, and the sum of the steps is the period's), or on the
 * deployment's shared chatbot the conversations the bridge opened for the tenant; the handoffs are the
 * tickets of the tenant's view, the votes those in its part of the store.
 */
import type { TenantScope } from '../context';
import { feedbackOf } from '../feedback/feedback';
import { handoffTickets } from '../handoff/figures';
import type { TrendChart } from '../surface';
import { ownConversations } from '../tenants/own-conversations';

const DAY_MS = 86_400_000;
/** At most this many steps: a day each up to a month, then as many days each as it takes. */
export const MAX_TREND_STEPS = 31;
/** How many per-step overviews are asked of the service at once. */
const SERVICE_CONCURRENCY = 4;

export const TREND_SERIES = ['Conversations', 'Handoffs', 'Positive votes', 'Negative votes'] as const;

export interface TrendStep {
  /** "11-03", or "11-03–11-04" for a step of several days. */
  label: string;
  /** Its first and last day (YYYY-MM-DD, UTC, both whole). */
  from: string;
  to: string;
  startMs: number;
  endMs: number;
}

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const monthDay = (ms: number): string => isoDay(ms).slice(5);

/** The steps of the days `from`..`to`: one a day, or `ceil(days / 31)` days each. */
export function trendSteps(from: string, to: string): { days: number; steps: TrendStep[] } {
  const start = Date.parse(`${from}T00:00:00.000Z`);
  const end = Date.parse(`${to}T00:00:00.000Z`) + DAY_MS - 1;
  const per = Math.max(1, Math.ceil(Math.round((end + 1 - start) / DAY_MS) / MAX_TREND_STEPS));
  const steps: TrendStep[] = [];
  for (let s = start; s <= end; s += per * DAY_MS) {
    const e = Math.min(end, s + per * DAY_MS - 1);
    const label = per === 1 ? monthDay(s) : `${monthDay(s)}–${monthDay(e)}`;
    steps.push({ label, from: isoDay(s), to: isoDay(e), startMs: s, endMs: e });
  }
  return { days: per, steps };
}

const countIn = (times: readonly number[], steps: readonly TrendStep[]): number[] =>
  steps.map((s) => times.filter((t) => t >= s.startMs && t <= s.endMs).length);

/** The service's conversations per step, a few overviews at a time. */
async function serviceConversations(ctx: TenantScope, steps: readonly TrendStep[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < steps.length; i += SERVICE_CONCURRENCY) {
    const batch = steps.slice(i, i + SERVICE_CONCURRENCY);
    const overviews = await Promise.all(
      batch.map((s) =>
        ctx.chatbot.client.v1.analyticsOverview({
          startDate: `${s.from}T00:00:00Z`,
          endDate: `${s.to}T23:59:59Z`,
          chatbotId: ctx.chatbot.chatbotId,
        }),
      ),
    );
    out.push(...overviews.map((o) => o.metrics.totalConversations));
  }
  return out;
}

/** The trend of the period for the scope's tenant (`shared`: it is a guest on the deployment's chatbot). */
export async function analyticsTrend(
  ctx: TenantScope,
  range: { from: string; to: string },
  shared: boolean,
): Promise<TrendChart> {
  const { days, steps } = trendSteps(range.from, range.to);
  const startMs = steps[0]!.startMs;
  const endMs = steps.at(-1)!.endMs;
  const [conversations, tickets, votes] = await Promise.all([
    shared
      ? ownConversations(ctx, ctx.tenant, ctx.chatbot.chatbotId).then((own) =>
          countIn(
            own.map((c) => c.createdAt),
            steps,
          ),
        )
      : serviceConversations(ctx, steps),
    handoffTickets(ctx, ctx.tenant),
    feedbackOf(ctx).votesBetween(startMs, endMs),
  ]);
  const voted = (kind: 'positive' | 'negative') =>
    countIn(
      votes.filter((v) => v.vote === kind).map((v) => v.at),
      steps,
    );
  const [c, h, up, down] = TREND_SERIES;
  return {
    title: `${days === 1 ? 'Per day' : `Per ${days} days`}, ${range.from} to ${range.to}`,
    categories: steps.map((s) => s.label),
    series: [
      { name: c, values: conversations },
      {
        name: h,
        values: countIn(
          tickets.map((t) => t.createdAt),
          steps,
        ),
      },
      { name: up, values: voted('positive') },
      { name: down, values: voted('negative') },
    ],
    xLabel: days === 1 ? 'Day (UTC)' : `${days} days (UTC)`,
    yLabel: 'Count',
  };
}
