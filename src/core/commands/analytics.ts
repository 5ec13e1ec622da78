/**
 * `/analytics [from] [to]` (admins): the /v1 overview as a table of figures, and the period's trend
 * (per day: conversations, handoffs, votes) as a chart: the surface's own where it draws one, else a
 * PNG of the trend alone (the figures are in the table or text beside it). A workspace on the
 * deployment's shared chatbot (tenants/shared-chatbot.ts) is shown its own figures only: the
 * conversations the bridge opened for it, in place of the chatbot-wide overview (every tenant's).
 */
import { z } from 'zod';
import type { V1AnalyticsOverview } from '../../service/schemas/v1';
import type { FeedbackTally } from '../../state/feedback-store';
import { feedbackOf } from '../feedback/feedback';
import { ownConversations } from '../tenants/own-conversations';
import { SHARED_CHATBOT_NOTE, onSharedChatbot } from '../tenants/shared-chatbot';
import { renderTrendChart } from '../analytics/chart';
import { handoffFigures, handoffFiguresText } from '../handoff/figures';
import type { TenantScope } from '../context';
import type { DataTable, Invocation } from '../surface';
import { analyticsTrend } from '../analytics/trend';
import { UsageError, parseArgs, tokenize } from './grammar';
import { usageOf } from './catalogue';
import { guardedCommand, requireAdmin } from './respond';

const USAGE = usageOf('analytics');
const DAY_MS = 86_400_000;
export const DEFAULT_ANALYTICS_DAYS = 30;

function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const date = (name: 'from' | 'to') =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${name}: dates are written YYYY-MM-DD, e.g. 2024-05-01`)
    .refine(isRealDate, (s) => ({ message: `${name}: ${s} is not a calendar date` }));

const argsSchema = z
  .object({ from: date('from').optional(), to: date('to').optional() })
  .strict()
  .refine((a) => !a.from || !a.to || a.from <= a.to, { message: 'from must be on or before to', path: ['from'] });

export interface AnalyticsRange {
  from: string;
  to: string;
}

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `[from] [to]` or `from:... to:...`; defaults to the last 30 days ending today (UTC). */
export function parseAnalyticsArgs(args: string, nowMs: number): AnalyticsRange {
  const raw: Record<string, string> = {};
  const positional: Array<'from' | 'to'> = ['from', 'to'];
  for (const t of tokenize(args)) {
    const name =
      t.key === undefined ? positional.find((p) => raw[p] === undefined) : (t.key.toLowerCase() as 'from' | 'to');
    if (name !== 'from' && name !== 'to') {
      throw new UsageError(
        t.key === undefined
          ? `Too many dates: "${t.value}". Give at most from and to.`
          : `Unknown option "${t.key}:"; use from: and to:.`,
        USAGE,
      );
    }
    if (raw[name] !== undefined) throw new UsageError(`${name}: given twice.`, USAGE);
    raw[name] = t.value;
  }
  const parsed = parseArgs(argsSchema, raw, USAGE);
  const to = parsed.to ?? (parsed.from && parsed.from > isoDay(nowMs) ? parsed.from : isoDay(nowMs));
  const from = parsed.from ?? isoDay(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_ANALYTICS_DAYS - 1) * DAY_MS);
  return { from, to };
}

const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** The service's resolution rate is a ratio (0..1); a figure above 1 is already a percentage. */
export function resolutionPercent(rate: number): number {
  return rate <= 1 ? rate * 100 : rate;
}

export function analyticsText(chatbotName: string, range: AnalyticsRange, a: V1AnalyticsOverview): string {
  const m = a.metrics;
  return [
    `Analytics for ${chatbotName}, ${range.from} to ${range.to}`,
    `Conversations: ${fmt.format(m.totalConversations)}`,
    `Messages: ${fmt.format(m.totalMessages)}`,
    `Unique users: ${fmt.format(m.uniqueUsers)}`,
    `Avg conversation length: ${fmt.format(m.avgConversationLength)} messages`,
    `Resolution rate: ${fmt.format(resolutionPercent(m.resolutionRate))}%`,
    `Avg response time: ${fmt.format(m.avgResponseTime)} s`,
  ].join('\n');
}

/** `Answer feedback: 12 👍, 3 👎 (80% positive)`: the votes cast on answers in the period, every surface. */
export function feedbackLine(t: Pick<FeedbackTally, 'positive' | 'negative'>): string {
  const total = t.positive + t.negative;
  const share = total === 0 ? 'no votes yet' : `${Math.round((t.positive / total) * 100)}% positive`;
  return `Answer feedback: ${fmt.format(t.positive)} 👍, ${fmt.format(t.negative)} 👎 (${share})`;
}

/** The chatbot's name as people know it; its id when the service does not list it. */
async function chatbotName(ctx: TenantScope): Promise<string> {
  try {
    const found = (await ctx.chatbot.client.v1.listChatbots({ limit: 100 })).items.find(
      (c) => c.id === ctx.chatbot.chatbotId,
    );
    return found?.name || ctx.chatbot.chatbotId;
  } catch {
    return ctx.chatbot.chatbotId;
  }
}

/** The chatbot's part of the result: what it is called and its figures as text. */
interface ChatbotFigures {
  name: string;
  text: string;
}

type Period = { range: AnalyticsRange; startMs: number; endMs: number };

/** The service's overview of the chatbot (the tenant's own chatbot, or the one chatbot of the deployment). */
async function serviceFigures(ctx: TenantScope, { range }: Period): Promise<ChatbotFigures> {
  // The service reads ISO 8601; the end day is included whole.
  const [overview, name] = await Promise.all([
    ctx.chatbot.client.v1.analyticsOverview({
      startDate: `${range.from}T00:00:00Z`,
      endDate: `${range.to}T23:59:59Z`,
      chatbotId: ctx.chatbot.chatbotId,
    }),
    chatbotName(ctx),
  ]);
  return { name, text: analyticsText(name, range, overview) };
}

/** On the shared chatbot: the conversations the bridge opened for this workspace in the period, and why no more. */
async function tenantFigures(
  ctx: TenantScope,
  inv: Invocation,
  { range, startMs, endMs }: Period,
): Promise<ChatbotFigures> {
  const own = await ownConversations(ctx, inv.tenant, ctx.chatbot.chatbotId);
  const opened = own.filter((c) => c.createdAt >= startMs && c.createdAt <= endMs).length;
  return {
    name: 'This workspace',
    text: [
      `Analytics for this workspace, ${range.from} to ${range.to}`,
      `Conversations: ${fmt.format(opened)} (opened in this workspace)`,
      SHARED_CHATBOT_NOTE,
    ].join('\n'),
  };
}

/**
 * The figures as a table (Figure, Value), from the text's "Label: value" lines; the first line (who
 * and when) is its caption, a line without a value a note row. The text stays: it is the message's
 * words where the table is not shown.
 */
export function figuresTable(text: string): DataTable {
  const [caption = 'Analytics', ...lines] = text.split('\n');
  const rows = lines.map((line) => {
    const at = line.indexOf(': ');
    return at < 0 ? ['Note', line] : [line.slice(0, at), line.slice(at + 2)];
  });
  return { caption, header: ['Figure', 'Value'], rows, sameAsText: true };
}

async function run(ctx: TenantScope, inv: Invocation, args: string): Promise<void> {
  requireAdmin(inv, 'see analytics');
  const range = parseAnalyticsArgs(args, ctx.now());
  // A visible message (an ephemeral one cannot be edited), replaced by the result when it is ready.
  const progress = await inv.reply({ text: `Crunching analytics for ${range.from} to ${range.to}…` });
  const period = {
    range,
    startMs: Date.parse(`${range.from}T00:00:00.000Z`),
    endMs: Date.parse(`${range.to}T23:59:59.999Z`),
  };
  // The bridge's own figures are the workspace's only: its votes and its tickets.
  const feedback = await feedbackOf(ctx).tally(period.startMs, period.endMs);
  const shared = onSharedChatbot(ctx);
  const [chatbot, handoffs, trend] = await Promise.all([
    shared ? tenantFigures(ctx, inv, period) : serviceFigures(ctx, period),
    handoffFigures(ctx, inv.tenant, range, { responseTarget: ctx.config.office?.firstReplyMs !== undefined }),
    analyticsTrend(ctx, range, shared),
  ]);
  const { name } = chatbot;
  const png = await renderTrendChart({ title: `${name}: ${range.from} to ${range.to}`, trend });
  const text = `${chatbot.text}\n${feedbackLine(feedback)}\n${handoffFiguresText(handoffs)}`;
  const file = {
    name: `analytics-${range.from}-${range.to}.png`,
    mime: 'image/png',
    data: png,
    title: `Analytics ${range.from} to ${range.to}`,
  };
  // The figures as a table, the trend as a chart (drawn by the surface where it can, else the PNG).
  const table = figuresTable(text);
  if (progress) {
    await inv.surface.edit(progress, { text, table });
    await inv.reply({ text: `Chart: ${name}, ${range.from} to ${range.to}`, chart: trend, file });
  } else {
    await inv.reply({ text, table, chart: trend, file });
  }
}

export const analyticsCommand = guardedCommand('analytics', {
  body: run,
});
