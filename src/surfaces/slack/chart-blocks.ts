/**
 * Slack's data_visualization block (a chart Slack draws itself), as its Block Kit reference gives it:
 * `title` (at most 50 characters) and `chart`, here a `line` chart: `series` (1 to 6, each a `name`
 * of at most 20 characters and its `data`, 1 to 20 points of `label` and `value`) and `axis_config`
 * (`categories`, the points' labels in order, at most 20 characters each; `x_label` and `y_label` at
 * most 50). A trend of more than 20 steps is shown with neighbouring steps added together (every
 * value is a count). Labels are escaped like every text of this surface. Workspaces that do not know
 * the block refuse it (`invalid_blocks`): the card fallback (card-fallback.ts) then sends the message
 * without it, and the PNG goes instead (port.ts).
 */
import type { TrendChart } from '../../core/surface';
import { escapeAll } from './safe-text';

const MAX_TITLE = 50;
const MAX_LABEL = 20;
const MAX_AXIS_LABEL = 50;
const MAX_SERIES = 6;
const MAX_POINTS = 20;

const clip = (s: string, max: number): string => {
  const text = escapeAll(s.replace(/\s+/g, ' ').trim());
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
};

/** The steps grouped `per` at a time: the group's label spans its first and last step. */
function grouped(chart: TrendChart): { categories: string[]; series: TrendChart['series'] } {
  const per = Math.ceil(chart.categories.length / MAX_POINTS);
  if (per <= 1) return chart;
  const groups: number[][] = [];
  for (let i = 0; i < chart.categories.length; i += per)
    groups.push(Array.from({ length: Math.min(per, chart.categories.length - i) }, (_, k) => i + k));
  const first = (label: string) => label.split('–')[0] ?? label;
  const last = (label: string) => label.split('–').at(-1) ?? label;
  return {
    categories: groups.map((g) => `${first(chart.categories[g[0]!]!)}–${last(chart.categories[g.at(-1)!]!)}`),
    series: chart.series.map((s) => ({
      name: s.name,
      values: groups.map((g) => g.reduce((sum, i) => sum + (s.values[i] ?? 0), 0)),
    })),
  };
}

export function chartBlock(chart: TrendChart): Record<string, unknown> {
  const { categories, series } = grouped(chart);
  const labels = categories.map((c) => clip(c, MAX_LABEL));
  return {
    type: 'data_visualization',
    title: clip(chart.title, MAX_TITLE) || 'Trend',
    chart: {
      type: 'line',
      series: series.slice(0, MAX_SERIES).map((s) => ({
        name: clip(s.name, MAX_LABEL) || 'Series',
        data: labels.map((label, i) => ({ label, value: s.values[i] ?? 0 })),
      })),
      axis_config: {
        categories: labels,
        ...(chart.xLabel ? { x_label: clip(chart.xLabel, MAX_AXIS_LABEL) } : {}),
        ...(chart.yLabel ? { y_label: clip(chart.yLabel, MAX_AXIS_LABEL) } : {}),
      },
    },
  };
}
