/**
 * Reads back what a trend chart drew: the PNG's chunks are walked (each CRC checked), and the
 * `chart-spec` tEXt chunk that renderTrendChart writes is parsed with zod.
 */
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { CHART_SPEC_KEYWORD } from '../../src/core/analytics/chart';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const chartSpecSchema = z
  .object({
    title: z.string(),
    /** The trend drawn, the whole of the image (per day: conversations, handoffs, votes). */
    trend: z.object({
      title: z.string(),
      categories: z.array(z.string()),
      series: z.array(z.object({ name: z.string(), values: z.array(z.number()) })),
      xLabel: z.string().optional(),
      yLabel: z.string().optional(),
    }),
  })
  .strict();
export type ChartSpec = z.infer<typeof chartSpecSchema>;

interface Chunk {
  type: string;
  data: Buffer;
}

/** Every chunk of a PNG, in order; throws on a bad signature or a bad CRC. */
export function pngChunks(png: Buffer): Chunk[] {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG (bad signature)');
  const chunks: Chunk[] = [];
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== crc) throw new Error(`bad CRC in the ${type} chunk`);
    chunks.push({ type, data });
    at += 12 + length;
    if (type === 'IEND') break;
  }
  if (chunks[0]?.type !== 'IHDR' || chunks.at(-1)?.type !== 'IEND') throw new Error('PNG chunks out of order');
  return chunks;
}

/** The PNG inside an upload's body (Slack's upload URL receives it multipart-wrapped), up to its IEND. */
export function pngInBody(body: Buffer): Buffer {
  const start = body.indexOf(PNG_SIGNATURE);
  if (start < 0) throw new Error('no PNG in the upload');
  const chunks = pngChunks(body.subarray(start));
  const length = 8 + chunks.reduce((n, c) => n + 12 + c.data.length, 0);
  return body.subarray(start, start + length);
}

/** The spec a trend chart was drawn from, or undefined when the PNG carries none. */
export function chartSpecOf(png: Buffer): ChartSpec | undefined {
  for (const c of pngChunks(png)) {
    if (c.type !== 'tEXt') continue;
    const text = c.data.toString('latin1');
    const cut = text.indexOf('\0');
    if (text.slice(0, cut) === CHART_SPEC_KEYWORD) return chartSpecSchema.parse(JSON.parse(text.slice(cut + 1)));
  }
  return undefined;
}

/** A series of the trend by name (its values, one per step). */
export function seriesOf(spec: ChartSpec, name: string): number[] {
  const series = spec.trend.series.find((s) => s.name === name);
  if (!series) throw new Error(`no series ${name} in ${spec.trend.series.map((s) => s.name).join(', ')}`);
  return series.values;
}
