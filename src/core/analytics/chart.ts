import { crc32 } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import {
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

// Tree-shaken chart.js draws nothing it has not been told about.
Chart.register(CategoryScale, LinearScale, Title, LineController, LineElement, PointElement, Legend);

const FONT_FAMILY = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";

/** A canvas is transparent; chat clients in dark mode would show black text on black. */
const whiteBackground: Plugin<'line'> = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

const TREND_WIDTH = 840;
const TREND_HEIGHT = 420;
const TREND_COLOURS = ['#3b6fd8', '#d8733b', '#2e9e5b', '#c0392b', '#7d3bd8', '#888888'];
const AXIS_TEXT = { color: '#333333', font: { family: FONT_FAMILY, size: 12 } };

/**
 * The trend as chart.js draws it: one line per series over the steps, on one count axis, with a
 * legend; the title's lines are the chart's name and period, then the trend's own (per day, …).
 */
export function trendChartConfig(
  trend: TrendChart,
  width: number,
  heading?: string,
): ChartConfiguration<'line', number[], string> {
  const axisTitle = (text: string | undefined) =>
    text ? { display: true, text, color: '#333333', font: { family: FONT_FAMILY, size: 12 } } : undefined;
  return {
    type: 'line',
    data: {
      labels: trend.categories,
      datasets: trend.series.map((s, i) => ({
        label: s.name,
        data: s.values,
        borderColor: TREND_COLOURS[i % TREND_COLOURS.length],
        backgroundColor: TREND_COLOURS[i % TREND_COLOURS.length],
        borderWidth: 2,
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
      font: { family: FONT_FAMILY },
      plugins: {
        title: {
          display: true,
          text: heading ? [heading, trend.title] : trend.title,
          color: '#111111',
          font: { size: width < 600 ? 14 : 16, weight: 'bold', family: FONT_FAMILY },
          padding: { top: 4, bottom: 12 },
        },
        legend: {
          display: true,
          position: 'bottom',
          labels: { ...AXIS_TEXT, usePointStyle: true, boxWidth: 8, boxHeight: 8 },
        },
      },
      scales: {
        // A month of days: labels turned as needed, never overlapping (chart.js skips some).
        x: {
          title: axisTitle(trend.xLabel),
          offset: true,
          grid: { display: false },
          ticks: { ...AXIS_TEXT, autoSkip: true },
        },
        y: { beginAtZero: true, ticks: { ...AXIS_TEXT, precision: 0 }, title: axisTitle(trend.yLabel) },
      },
    },
    plugins: [whiteBackground],
  };
}

/**
 * The period's trend as a PNG: one line chart (per step: conversations, handoffs, votes), titled with
 * who and when. The figures themselves go beside it as a table or text, so the image holds only what
 * reads better drawn: how the period went, day by day.
 */
export async function renderTrendChart(spec: { title: string; trend: TrendChart }): Promise<Buffer> {
  if (spec.trend.series.some((s) => s.values.length !== spec.trend.categories.length)) {
    throw new RangeError('every trend series needs one value per category');
  }
  const canvas = createCanvas(TREND_WIDTH, TREND_HEIGHT);
  const chart = new Chart(
    canvas.getContext('2d') as unknown as CanvasRenderingContext2D,
    trendChartConfig(spec.trend, TREND_WIDTH, spec.title),
  );
  try {
    const drawnSpec: ChartSpecText = { title: spec.title, trend: spec.trend };
    return withTextChunk(await canvas.encode('png'), CHART_SPEC_KEYWORD, JSON.stringify(drawnSpec));
  } finally {
    chart.destroy();
  }
}

/** The keyword of the PNG text chunk that carries the trend a chart drew. */
export const CHART_SPEC_KEYWORD = 'chart-spec';

interface ChartSpecText {
  title: string;
  trend: TrendChart;
}

/**
 * The trend's figures go into the PNG as a tEXt chunk beside the pixels: a reader (a test, an archive,
 * anyone who wants the numbers back) gets exactly what was drawn without reading lines off an image.
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
