/** Slack's data_visualization block built from a trend: Slack's limits kept, a long trend grouped (sums). */
import { chartBlock } from '../../../src/surfaces/slack/chart-blocks';
import { dataVisualizationProblem } from '../../../fakes/fake-slack-charts';
import { trendSteps } from '../../../src/core/analytics/trend';

type Line = {
  title: string;
  chart: {
    series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
    axis_config: { categories: string[] };
  };
};

describe('chartBlock', () => {
  it('a week: one point per day, as given, and a valid block', () => {
    const { steps } = trendSteps('2026-11-01', '2026-11-07');
    const block = chartBlock({
      title: 'Per day, 2026-11-01 to 2026-11-07',
      categories: steps.map((s) => s.label),
      series: [{ name: 'Conversations', values: [1, 2, 3, 4, 5, 6, 7] }],
    }) as unknown as Line;
    expect(dataVisualizationProblem(block as never)).toBeUndefined();
    expect(block.chart.axis_config.categories).toEqual(['11-01', '11-02', '11-03', '11-04', '11-05', '11-06', '11-07']);
    expect(block.chart.series[0]!.data.map((p) => p.value)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('30 days: 15 points of two days each, their counts added; labels and title within Slack’s limits', () => {
    const { steps } = trendSteps('2026-10-31', '2026-11-29');
    expect(steps).toHaveLength(30);
    const values = steps.map((_, i) => i);
    const block = chartBlock({
      title: 'Per day, 2026-10-31 to 2026-11-29, a title longer than fifty characters',
      categories: steps.map((s) => s.label),
      series: [
        { name: 'Conversations', values },
        { name: 'Negative votes', values: values.map(() => 1) },
      ],
    }) as unknown as Line;
    expect(dataVisualizationProblem(block as never)).toBeUndefined();
    expect(block.title.length).toBeLessThanOrEqual(50);
    expect(block.chart.axis_config.categories).toHaveLength(15);
    expect(block.chart.axis_config.categories[0]).toBe('10-31–11-01');
    expect(block.chart.series[0]!.data.map((p) => p.value)).toEqual(
      Array.from({ length: 15 }, (_, k) => 2 * k + (2 * k + 1)),
    );
    expect(block.chart.series[1]!.data.every((p) => p.value === 2)).toBe(true);
  });

  it('the fake refuses what Slack would: 21 points, a long series name, an unknown label', () => {
    const cats = Array.from({ length: 21 }, (_, i) => `d${i}`);
    const base = { type: 'data_visualization', title: 'T' };
    const line = (series: unknown, categories = cats) => ({
      ...base,
      chart: { type: 'line', series, axis_config: { categories } },
    });
    expect(dataVisualizationProblem(line([{ name: 'A', data: cats.map((c) => ({ label: c, value: 1 })) }]))).toMatch(
      /20/,
    );
    expect(dataVisualizationProblem(line([{ name: 'x'.repeat(21), data: [{ label: 'd0', value: 1 }] }]))).toMatch(
      /name/,
    );
    expect(dataVisualizationProblem(line([{ name: 'A', data: [{ label: 'zz', value: 1 }] }]))).toMatch(/category/);
  });
});
