/**
 * Slack fetches the image of every `image` block before it accepts the message; one photo it cannot
 * download makes it refuse the whole message (`invalid_blocks`, "downloading image failed
 * [json-pointer:/blocks/3/image_url]"). (A section's image accessory is not fetched first: it shows
 * as a broken icon instead, which is why blocks.ts never puts a photo there.) One broken listing photo must never cost the list
 * or the card: the message is sent again without the images Slack named (without every image when it
 * named none), once; should that be refused for an image too, without any image.
 */
import { webApi } from '@slack/bolt';

type WebClient = InstanceType<typeof webApi.WebClient>;
type Block = Record<string, unknown>;

/** The calls whose blocks Slack checks this way. */
const WITH_BLOCKS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral']);

/** The refusal's own words: its `errors` and `response_metadata.messages`. */
function refusalMessages(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const data = (err as { data?: { error?: unknown; errors?: unknown; response_metadata?: { messages?: unknown } } })
    .data;
  if (data?.error !== 'invalid_blocks') return [];
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  return [...list(data.errors), ...list(data.response_metadata?.messages)];
}

export function isImageDownloadFailure(err: unknown): boolean {
  return refusalMessages(err).some((m) => /downloading image failed|invalid image|image_url/i.test(m));
}

/** The JSON pointers of the images Slack could not fetch ("/blocks/3/accessory/image_url"). */
export function failingImagePointers(err: unknown): string[] {
  const out = new Set<string>();
  for (const m of refusalMessages(err)) for (const p of m.matchAll(/json-pointer:([^\]\s]+)/g)) out.add(p[1]);
  return [...out];
}

function isImage(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as Block).type === 'image';
}

/** The blocks without the images at `pointers` (every image when `pointers` is empty). */
export function withoutImages(blocks: readonly Block[], pointers: readonly string[]): Block[] {
  const all = pointers.length === 0;
  const at = (i: number, tail: string) =>
    pointers.some((p) => p === `/blocks/${i}${tail}` || p.startsWith(`/blocks/${i}${tail}/`));
  const out: Block[] = [];
  blocks.forEach((block, i) => {
    if (block.type === 'image' && (all || at(i, ''))) return;
    const copy: Block = { ...block };
    if (isImage(copy.accessory) && (all || at(i, '/accessory'))) delete copy.accessory;
    if (block.type === 'carousel' && Array.isArray(copy.elements)) {
      // A card keeps its title and text without the photo Slack could not fetch.
      copy.elements = (copy.elements as Block[]).map((card, j) => {
        if (!(all || at(i, `/elements/${j}/hero_image`))) return card;
        const { hero_image: _gone, ...rest } = card;
        return rest;
      });
      out.push(copy);
      return;
    }
    if (Array.isArray(copy.elements)) {
      copy.elements = (copy.elements as unknown[]).filter(
        (el, j) => !(isImage(el) && (all || at(i, `/elements/${j}`))),
      );
      // A context block needs at least one element.
      if ((copy.elements as unknown[]).length === 0) return;
    }
    out.push(copy);
  });
  return out;
}

function blocksOf(options: Record<string, unknown> | undefined): Block[] | undefined {
  const b = options?.blocks;
  if (Array.isArray(b)) return b as Block[];
  if (typeof b === 'string') {
    try {
      const parsed: unknown = JSON.parse(b);
      return Array.isArray(parsed) ? (parsed as Block[]) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Sends a call; when Slack refuses it for an image it could not download, sends it once more
 * without that image (or without any image, when the refusal does not say which). Should that be
 * refused for an image too (Slack named only the first of several), the last try has no image.
 */
export async function sendWithoutBrokenImages<T>(
  options: Record<string, unknown> | undefined,
  send: (options: Record<string, unknown> | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await send(options);
  } catch (err) {
    const blocks = blocksOf(options);
    if (!blocks || !isImageDownloadFailure(err)) throw err;
    const fewer = withoutImages(blocks, failingImagePointers(err));
    const none = withoutImages(blocks, []);
    // Pointers that name nothing we sent: drop every image rather than send the same thing again.
    if (JSON.stringify(fewer) === JSON.stringify(blocks)) return send({ ...options, blocks: none });
    try {
      return await send({ ...options, blocks: fewer });
    } catch (again) {
      if (!isImageDownloadFailure(again) || JSON.stringify(fewer) === JSON.stringify(none)) throw again;
      return send({ ...options, blocks: none });
    }
  }
}

/**
 * A response_url body's blocks: without images. Its refusal names no image to leave out (and is a
 * fallback worth more than a photo), so it never carries one Slack could refuse.
 */
export function forResponseUrl<B extends Block>(blocks: readonly B[]): Block[] {
  return withoutImages(blocks, []);
}

/** A Web API client whose messages survive a photo Slack cannot fetch (see the module comment). */
export class ImageSafeWebClient extends webApi.WebClient {
  override apiCall(method: string, options?: Record<string, unknown>): ReturnType<WebClient['apiCall']> {
    if (!WITH_BLOCKS.has(method)) return super.apiCall(method, options);
    return sendWithoutBrokenImages(options, (o) => super.apiCall(method, o));
  }
}
