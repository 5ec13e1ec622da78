/**
 * The fake Slack's check of a data_visualization block, as Slack's Block Kit reference describes it:
 * `title` (1 to 50 characters) and `chart`, one of `pie` (`segments`: 1 to 6, each a `label` of at most
 * 20 characters and a `value` above 0) or `bar` / `area` / `line` (`series`: 1 to 6 with unique
 * `name`s of at most 20 characters, each `data` 1 to 20 points of `label` (at most 20 characters) and a
 * finite `value`, every label one of `axis_config.categories`; `axis_config.categories` at most 20
 * characters each, `x_label` and `y_label` at most 50). At most two such blocks in a message.
 */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): boolean => typeof v === 'string' && v.length >= 1 && v.length <= max;

function pieProblem(c: Obj): string | undefined {
  const segments = c.segments;
  if (!Array.isArray(segments) || segments.length < 1 || segments.length > 6) return 'pie: 1 to 6 segments';
  for (const s of segments) {
    if (!isObj(s) || !text(s.label, 20)) return 'pie: a segment label of 1 to 20 characters';
    if (typeof s.value !== 'number' || !(s.value > 0)) return 'pie: a segment value above 0';
  }
  return undefined;
}

function axisProblem(axis: unknown): string | undefined {
  if (!isObj(axis)) return 'axis_config is required';
  const cats = axis.categories;
  if (!Array.isArray(cats) || cats.length < 1 || !cats.every((c) => text(c, 20)))
    return 'axis_config.categories: labels of 1 to 20 characters';
  if (axis.x_label !== undefined && !text(axis.x_label, 50)) return 'axis_config.x_label: at most 50 characters';
  if (axis.y_label !== undefined && !text(axis.y_label, 50)) return 'axis_config.y_label: at most 50 characters';
  return undefined;
}

function seriesProblem(c: Obj): string | undefined {
  const bad = axisProblem(c.axis_config);
  if (bad) return bad;
  const categories = new Set((c.axis_config as { categories: string[] }).categories);
  const series = c.series;
  if (!Array.isArray(series) || series.length < 1 || series.length > 6) return 'series: 1 to 6';
  const names = new Set<string>();
  for (const s of series) {
    if (!isObj(s) || !text(s.name, 20)) return 'series: a name of 1 to 20 characters';
    if (names.has(s.name as string)) return 'series: names are unique';
    names.add(s.name as string);
    const data = s.data;
    if (!Array.isArray(data) || data.length < 1 || data.length > 20) return 'series: 1 to 20 data points';
    for (const p of data) {
      if (!isObj(p) || !text(p.label, 20)) return 'data point: a label of 1 to 20 characters';
      if (!categories.has(p.label as string)) return `data point: ${String(p.label)} is not a category`;
      if (typeof p.value !== 'number' || !Number.isFinite(p.value)) return 'data point: a number';
    }
  }
  return undefined;
}

/** What is wrong with a data_visualization block (undefined: nothing). */
export function dataVisualizationProblem(b: Obj): string | undefined {
  if (!text(b.title, 50)) return 'title: 1 to 50 characters';
  const chart = b.chart;
  if (!isObj(chart)) return 'chart is required';
  if (chart.type === 'pie') return pieProblem(chart);
  if (chart.type === 'bar' || chart.type === 'area' || chart.type === 'line') return seriesProblem(chart);
  return `unknown chart type ${String(chart.type)}`;
}

/** Slack takes at most two data_visualization blocks in one message. */
export const MAX_CHARTS_PER_MESSAGE = 2;
