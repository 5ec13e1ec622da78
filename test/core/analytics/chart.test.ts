import { writeFileSync } from 'node:fs';
import { renderTrendChart, trendChartConfig } from '../../../src/core/analytics/chart';
import { chartSpecOf, pngChunks, seriesOf } from '../../support/png-chart';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which must come first after the signature. */
function ihdrSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('renderTrendChart: the PNG of /analytics is the per-day trend only', () => {
  const trend = {
    title: 'Per day, 2026-11-01 to 2026-11-03',
    categories: ['11-01', '11-02', '11-03'],
    series: [
      { name: 'Conversations', values: [4, 0, 9] },
      { name: 'Handoffs', values: [1, 0, 2] },
      { name: 'Positive votes', values: [3, 1, 0] },
      { name: 'Negative votes', values: [0, 2, 1] },
    ],
    xLabel: 'Day (UTC)',
    yLabel: 'Count',
  };
  const title = 'Bot: 2026-11-01 to 2026-11-03';

  it('embeds what it drew: the title and the trend, series equal to the per-day figures, no panels', async () => {
    const png = await renderTrendChart({ title, trend });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(ihdrSize(png)).toEqual({ width: 840, height: 420 });
    const spec = chartSpecOf(png)!;
    expect(spec).toEqual({ title, trend });
    expect(seriesOf(spec, 'Handoffs')).toEqual([1, 0, 2]);
    writeFileSync('/tmp/trend-sample.png', png);
  });

  it('draws the data: other figures give other pixels', async () => {
    const pixels = (p: Buffer): Buffer =>
      Buffer.concat(
        pngChunks(p)
          .filter((c) => c.type === 'IDAT')
          .map((c) => c.data),
      );
    const one = await renderTrendChart({ title, trend });
    const other = await renderTrendChart({
      title,
      trend: { ...trend, series: trend.series.map((s, i) => (i === 1 ? { ...s, values: [0, 5, 0] } : s)) },
    });
    expect(pixels(one).equals(pixels(other))).toBe(false);
  });

  it('one line per series on one count axis from zero, a legend, the period in the title', () => {
    const config = trendChartConfig(trend, 840, title);
    expect(config.type).toBe('line');
    expect(config.data.labels).toEqual(trend.categories);
    expect(config.data.datasets.map((d) => [d.label, d.data])).toEqual(trend.series.map((s) => [s.name, s.values]));
    expect(config.options?.plugins?.title?.text).toEqual([title, trend.title]);
    expect(config.options?.plugins?.legend?.display).toBe(true);
    const y = config.options?.scales?.y as { beginAtZero?: boolean; ticks?: { precision?: number } };
    expect(y.beginAtZero).toBe(true);
    expect(y.ticks?.precision).toBe(0);
  });

  it('refuses a series whose values do not match the days', async () => {
    await expect(
      renderTrendChart({ title, trend: { ...trend, series: [{ name: 'Handoffs', values: [1] }] } }),
    ).rejects.toThrow(RangeError);
  });
});
