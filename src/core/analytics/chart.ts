import { crc32 } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  type Plugin,
  PointElement,
  Title,
} from 'chart.js';
import type { TrendChart } from '../surface';

export interface BarChartSpec {
  title: string;
  labels: string[];
  values: number[];
  /** Pixels; default 800. */
  width?: number;
  /** Pixels; default 450. */
  height?: number;
  /** A fixed top of the value axis (100 for a percentage). */
  max?: number;
}

// Tree-shaken chart.js draws nothing it has not been told about.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  Title,
  LineController,
  LineElement,
  PointElement,
  Legend,
);

const FONT_FAMILY = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";
const BAR_COLOUR = '#3b6fd8';

/** A canvas is transparent; chat clients in dark mode would show black text on black. */
const whiteBackground: Plugin<'bar'> = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

/** Each bar's figure above it, so the image reads without hovering (there is no hovering in a PNG). */
const valueLabels: Plugin<'bar'> = {
  id: 'valueLabels',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const meta = chart.getDatasetMeta(0);
    const data = chart.data.datasets[0]?.data ?? [];
    ctx.save();
    ctx.fillStyle = '#222222';
    ctx.font = `12px ${FONT_FAMILY}`;
    ctx.textAlign = 'center';
    meta.data.forEach((bar, i) => {
      const value = data[i];
      if (typeof value !== 'number') return;
      const { x, y, base } = bar.getProps(['x', 'y', 'base'], true) as { x: number; y: number; base: number };
      const above = value >= 0;
      ctx.textBaseline = above ? 'bottom' : 'top';
      ctx.fillText(formatValue(value), x, above ? Math.min(y, base) - 3 : Math.max(y, base) + 3);
    });
    ctx.restore();
  },
};

function formatValue(value: number): string {
  return Number.isInteger(value)
    ? value.toLocaleString('en-US')
    : value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Renders a bar chart to PNG in-process (no browser): chart.js drawing on a @napi-rs/canvas. */
export async function renderBarChart(spec: BarChartSpec): Promise<Buffer> {
  const width = Math.round(spec.width ?? 800);
  const height = Math.round(spec.height ?? 450);
  if (width <= 0 || height <= 0) throw new RangeError(`chart size must be positive, got ${width}x${height}`);
  if (spec.labels.length !== spec.values.length) {
    throw new RangeError(`labels (${spec.labels.length}) and values (${spec.values.length}) differ in length`);
  }
  const { canvas, chart } = drawBarChart(spec, width, height);
  try {
    return await canvas.encode('png');
  } finally {
    chart.destroy();
  }
}

type BarConfig = ChartConfiguration<'bar', number[], string>;

/** The chart drawn on a fresh canvas (the caller encodes or copies it, then destroys the chart). */
function drawBarChart(spec: BarChartSpec, width: number, height: number) {
  const canvas = createCanvas(width, height);
  // chart.js only needs the 2D context API; @napi-rs/canvas provides it under the DOM's type names.
  const ctx = canvas.getContext('2d') as unknown as CanvasRenderingContext2D;
  const chart = new Chart<'bar', number[], string>(ctx, barChartConfig(spec, width));
  return { canvas, chart };
}

/** What chart.js is told to draw: one dataset on one value axis. Pure, so a test can read the scales. */
function barChartConfig(spec: BarChartSpec, width: number): BarConfig {
  return {
    type: 'bar',
    data: {
      labels: spec.labels,
      datasets: [{ data: spec.values, backgroundColor: BAR_COLOUR, borderRadius: 3, maxBarThickness: 80 }],
    },
    options: {
      responsive: false,
      animation: false,
      devicePixelRatio: 1,
      events: [],
      layout: { padding: { top: 8, right: 16, bottom: 8, left: 8 } },
      font: { family: FONT_FAMILY },
      plugins: {
        title: {
          display: true,
          text: spec.title,
          font: { size: width < 600 ? 14 : 18, weight: 'bold', family: FONT_FAMILY },
          color: '#111111',
          // Room for the figure above a bar that reaches a fixed top (a 100% resolution rate).
          padding: { top: 4, bottom: 18 },
        },
        legend: { display: false },
      },
      scales: {
        x: { ticks: { color: '#333333', font: { family: FONT_FAMILY } }, grid: { display: false } },
        // Headroom so the value label above the tallest bar stays inside the plot.
        y: {
          beginAtZero: true,
          grace: '10%',
          ...(spec.max !== undefined ? { max: spec.max } : {}),
          ticks: { color: '#333333', font: { family: FONT_FAMILY } },
        },
      },
    },
    plugins: [whiteBackground, valueLabels],
  };
}

export interface ChartPanel {
  /** The panel's heading, e.g. "Resolution rate (%)". */
  title: string;
  labels: string[];
  values: number[];
  /** A fixed top of the scale (100 for a percentage); otherwise the panel's own figures set it. */
  max?: number;
}

/** The top of a panel's axis: a round figure just above its largest bar (1 for an empty panel). */
export function panelAxisMax(values: readonly number[]): number {
  const top = Math.max(0, ...values.filter(Number.isFinite)) * 1.1;
  if (top === 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(top));
  const step = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * magnitude >= top - 1e-9) ?? 10;
  return Math.round(step * magnitude * 1e6) / 1e6;
}

/**
 * One chart.js configuration per panel: each its own dataset and its own value axis, topped by the
 * panel's fixed maximum (100 for a percentage) or by its own largest figure, never by another panel's.
 */
export function panelChartConfigs(panels: readonly ChartPanel[], panelWidth = PANEL_WIDTH): BarConfig[] {
  return panels.map((panel) =>
    barChartConfig(
      { title: panel.title, labels: panel.labels, values: panel.values, max: panel.max ?? panelAxisMax(panel.values) },
      panelWidth,
    ),
  );
}

const PANEL_WIDTH = 420;
const PANEL_HEIGHT = 260;

const TREND_HEIGHT = 320;
const TREND_COLOURS = ['#3b6fd8', '#d8733b', '#2e9e5b', '#c0392b', '#7d3bd8', '#888888'];

/** The trend as chart.js draws it: one line per series over the steps, on one count axis, with a legend. */
export function trendChartConfig(trend: TrendChart, width: number): ChartConfiguration<'line', number[], string> {
  const axisTitle = (text: string | undefined) => (text ? { display: true, text, color: '#333333' } : undefined);
  return {
    type: 'line',
    data: {
      labels: trend.categories,
      datasets: trend.series.map((s, i) => ({
        label: s.name,
        data: s.values,
        borderColor: TREND_COLOURS[i % TREND_COLOURS.length],
        backgroundColor: TREND_COLOURS[i % TREND_COLOURS.length],
        pointRadius: 3,
        tension: 0,
      })),
    },
    options: {
      responsive: false,
      animation: false,
      devicePixelRatio: 1,
      events: [],
      layout: { padding: { top: 8, right: 16, bottom: 8, left: 8 } },
      plugins: {
        title: { display: true, text: trend.title, font: { size: width < 600 ? 14 : 16, weight: 'bold' } },
        legend: { display: true, position: 'bottom' },
      },
      scales: {
        x: { title: axisTitle(trend.xLabel), grid: { display: false } },
        y: { beginAtZero: true, ticks: { precision: 0 }, title: axisTitle(trend.yLabel) },
      },
    },
    plugins: [whiteBackground as unknown as Plugin<'line'>],
  };
}

/**
 * The trend (when given) across the top, then several small bar charts, each on its own scale:
 * counts, a percentage and seconds on one axis would flatten all but the largest. Panels are laid
 * out two to a row under one title.
 */
export async function renderPanelChart(spec: {
  title: string;
  panels: ChartPanel[];
  trend?: TrendChart;
}): Promise<Buffer> {
  if (spec.panels.length === 0) throw new RangeError('a panel chart needs at least one panel');
  const pw = PANEL_WIDTH;
  const ph = PANEL_HEIGHT;
  const columns = Math.min(2, spec.panels.length);
  const rows = Math.ceil(spec.panels.length / columns);
  const trendHeight = spec.trend ? TREND_HEIGHT : 0;
  const header = 44 + trendHeight;
  const canvas = createCanvas(pw * columns, header + ph * rows);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#111111';
  ctx.font = `bold 18px ${FONT_FAMILY}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(spec.title, canvas.width / 2, 22);
  if (spec.trend) {
    const trendCanvas = createCanvas(canvas.width, trendHeight);
    const chart = new Chart(
      trendCanvas.getContext('2d') as unknown as CanvasRenderingContext2D,
      trendChartConfig(spec.trend, canvas.width),
    );
    try {
      ctx.drawImage(trendCanvas, 0, 44);
    } finally {
      chart.destroy();
    }
  }
  for (const [i, config] of panelChartConfigs(spec.panels, pw).entries()) {
    const panelCanvas = createCanvas(pw, ph);
    const chart = new Chart(panelCanvas.getContext('2d') as unknown as CanvasRenderingContext2D, config);
    try {
      ctx.drawImage(panelCanvas, (i % columns) * pw, header + Math.floor(i / columns) * ph);
    } finally {
      chart.destroy();
    }
  }
  const drawnSpec: ChartSpecText = {
    title: spec.title,
    panels: spec.panels,
    ...(spec.trend ? { trend: spec.trend } : {}),
  };
  return withTextChunk(await canvas.encode('png'), CHART_SPEC_KEYWORD, JSON.stringify(drawnSpec));
}

/** The keyword of the PNG text chunk that carries the figures a panel chart drew. */
export const CHART_SPEC_KEYWORD = 'chart-spec';

interface ChartSpecText {
  title: string;
  panels: ChartPanel[];
  trend?: TrendChart;
}

/**
 * The figures go into the PNG as a tEXt chunk beside the pixels: a reader (a test, an archive,
 * anyone who wants the numbers back) gets exactly what was drawn without reading bars off an image.
 * The chunk is inserted before IEND, where any PNG decoder skips what it does not need.
 */
function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const iend = png.length - 12;
  if (png.subarray(iend + 4, iend + 8).toString('latin1') !== 'IEND') throw new Error('PNG does not end with IEND');
  // tEXt is Latin-1; JSON escapes of anything wider keep the text ASCII.
  const body = Buffer.from(`${keyword}\0${asciiJson(text)}`, 'latin1');
  const chunk = Buffer.alloc(12 + body.length);
  chunk.writeUInt32BE(body.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  body.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + body.length)), 8 + body.length);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

function asciiJson(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
