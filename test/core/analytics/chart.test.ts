import { writeFileSync } from 'node:fs';
import { renderBarChart } from '../../../src/core/analytics/chart';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which must come first after the signature. */
function ihdrSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('renderBarChart', () => {
  const labels = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];

  it('returns a PNG of the requested size', async () => {
    const png = await renderBarChart({
      title: 'Questions per day',
      labels,
      values: [12, 30, 7, 22, 15],
      width: 640,
      height: 360,
    });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(ihdrSize(png)).toEqual({ width: 640, height: 360 });
    writeFileSync('/tmp/chart-sample.png', png);
  });

  it('uses 800x450 by default', async () => {
    const png = await renderBarChart({ title: 'Default', labels: ['a'], values: [1] });
    expect(ihdrSize(png)).toEqual({ width: 800, height: 450 });
  });

  it('draws the data: different values give different images', async () => {
    const one = await renderBarChart({ title: 'T', labels, values: [1, 2, 3, 4, 5], width: 400, height: 300 });
    const two = await renderBarChart({ title: 'T', labels, values: [5, 4, 3, 2, 1], width: 400, height: 300 });
    const again = await renderBarChart({ title: 'T', labels, values: [1, 2, 3, 4, 5], width: 400, height: 300 });
    expect(one.equals(two)).toBe(false);
    expect(one.equals(again)).toBe(true); // deterministic, so the difference above is the data's
  });

  it('renders an empty chart and rejects mismatched labels and values', async () => {
    const empty = await renderBarChart({ title: 'Nothing yet', labels: [], values: [], width: 300, height: 200 });
    expect(ihdrSize(empty)).toEqual({ width: 300, height: 200 });
    await expect(renderBarChart({ title: 'x', labels: ['a', 'b'], values: [1] })).rejects.toThrow(RangeError);
  });
});
