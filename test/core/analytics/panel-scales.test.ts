import { createCanvas } from '@napi-rs/canvas';
import { Chart } from 'chart.js';
import { panelAxisMax, panelChartConfigs } from '../../../src/core/analytics/chart';
import { analyticsPanels } from '../../../src/core/commands/analytics';
import { handoffChartPanels } from '../../../src/core/handoff/figures';

/**
 * /analytics draws one panel per measure, each on its own scale: counts, a percentage, seconds and
 * minutes on one axis would let the 100% bar (or 300 messages) flatten everything else.
 */
const overview = {
  metrics: {
    totalConversations: 4,
    totalMessages: 9,
    uniqueUsers: 3,
    avgConversationLength: 2.25,
    resolutionRate: 1,
    avgResponseTime: 0.8,
  },
} as Parameters<typeof analyticsPanels>[0];

const handoffs = {
  opened: 5,
  claimed: 4,
  closed: 3,
  cancelled: 1,
  timedOut: 0,
  claimP50: 90_000,
  claimP90: 240_000,
  replyP50: 30_000,
  replyP90: 60_000,
  satisfactionAverage: 4.5,
  satisfactionCount: 2,
} as Parameters<typeof handoffChartPanels>[0];

const panels = [...analyticsPanels(overview, { positive: 7, negative: 2 }), ...handoffChartPanels(handoffs)];
const configs = panelChartConfigs(panels);

/** The value axis chart.js actually builds from a config (drawn on a real canvas, then destroyed). */
function builtAxis(config: (typeof configs)[number]): { min: number; max: number; axes: string[] } {
  const canvas = createCanvas(420, 260);
  const chart = new Chart(canvas.getContext('2d') as unknown as CanvasRenderingContext2D, config);
  try {
    const y = chart.scales.y;
    return { min: y.min, max: y.max, axes: Object.keys(chart.scales).sort() };
  } finally {
    chart.destroy();
  }
}

describe('the /analytics chart: one scale per panel', () => {
  it('has a panel per measure, each drawn with exactly its own figures in one dataset', () => {
    expect(configs).toHaveLength(panels.length);
    configs.forEach((config, i) => {
      expect(config.data.datasets).toHaveLength(1);
      expect(config.data.datasets[0]?.data).toEqual(panels[i]?.values);
      expect(config.data.labels).toEqual(panels[i]?.labels);
    });
  });

  it('gives each panel one category axis and one value axis of its own', () => {
    for (const config of configs) {
      expect(Object.keys(config.options?.scales ?? {}).sort()).toEqual(['x', 'y']);
      expect(builtAxis(config).axes).toEqual(['x', 'y']);
    }
  });

  it('keeps the percentage, the seconds and the counts apart: no panel mixes them', () => {
    const percent = panels.findIndex((p) => p.title.includes('%'));
    const seconds = panels.findIndex((p) => p.title.includes('(s)'));
    const activity = panels.findIndex((p) => p.labels.includes('Conversations'));
    expect(new Set([percent, seconds, activity]).size).toBe(3);
    expect(panels[percent]?.values).toEqual([100]);
    expect(panels[seconds]?.values).toEqual([0.8]);
    expect(panels[activity]?.values).toEqual([4, 9, 3]);
  });

  it('tops each value axis by its own largest figure: a 100% bar does not flatten a count', () => {
    configs.forEach((config, i) => {
      const values = panels[i]?.values ?? [];
      const axis = builtAxis(config);
      const largest = Math.max(...values);
      expect(axis.min).toBe(0);
      expect(axis.max).toBeGreaterThanOrEqual(largest);
      if (panels[i]?.max === undefined && largest > 0) {
        // The tallest bar fills most of its panel, whatever the other panels hold.
        expect(largest / axis.max).toBeGreaterThanOrEqual(0.6);
      }
    });
    const percent = configs[panels.findIndex((p) => p.title.includes('%'))];
    const activity = configs[panels.findIndex((p) => p.labels.includes('Conversations'))];
    expect(builtAxis(percent!).max).toBe(100);
    expect(builtAxis(activity!).max).toBe(10);
    expect(builtAxis(configs[panels.findIndex((p) => p.title.includes('(s)'))]!).max).toBe(1);
  });

  it('rounds an axis top just above the largest figure', () => {
    expect(panelAxisMax([4, 9, 3])).toBe(10);
    expect(panelAxisMax([300])).toBe(400);
    expect(panelAxisMax([0.8])).toBe(1);
    expect(panelAxisMax([2.25])).toBe(2.5);
    expect(panelAxisMax([0, 0])).toBe(1);
    expect(panelAxisMax([])).toBe(1);
  });
});
