/**
 * Attachment downloads for every surface: bounded in bytes and in time, so a huge or endless file
 * can neither fill memory nor hold a conversation's queue. Too big is a clear message for the user
 * (AttachmentTooLargeError), not a crash.
 */
import { AttachmentTooLargeError } from '../core/attachments';

/** The largest file the chatbot accepts (a video, 100 MB): nothing bigger is worth downloading. */
export const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;
/** A download that takes longer than this is abandoned. */
export const DOWNLOAD_TIMEOUT_MS = 60_000;

export interface DownloadOptions {
  /** Shown to the user in errors. */
  name: string;
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
  /** What the platform calls itself in errors ("Slack", "Discord"). */
  platform: string;
}

export async function downloadCapped(
  url: string,
  opts: DownloadOptions,
): Promise<{ bytes: Buffer; contentType: string }> {
  const maxBytes = opts.maxBytes ?? MAX_DOWNLOAD_BYTES;
  const timeoutMs = opts.timeoutMs ?? DOWNLOAD_TIMEOUT_MS;
  let res: Response;
  try {
    // fetch drops Authorization on a cross-origin redirect, so a token never follows one elsewhere.
    res = await fetch(url, { headers: opts.headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    if (isAbort(err)) {
      throw new Error(`${opts.platform} did not hand out ${opts.name} within ${Math.round(timeoutMs / 1000)} s`);
    }
    throw new Error(
      `could not download ${opts.name} from ${opts.platform} (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`${opts.platform} refused the download of ${opts.name} (HTTP ${res.status})`);
  }
  const announced = Number(res.headers.get('content-length') ?? '');
  if (Number.isFinite(announced) && announced > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new AttachmentTooLargeError(opts.name, maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new AttachmentTooLargeError(opts.name, maxBytes);
        }
        chunks.push(Buffer.from(value));
      }
    } catch (err) {
      if (err instanceof AttachmentTooLargeError) throw err;
      if (isAbort(err)) {
        throw new Error(`${opts.platform} did not hand out ${opts.name} within ${Math.round(timeoutMs / 1000)} s`);
      }
      throw err;
    }
  }
  return { bytes: Buffer.concat(chunks), contentType: res.headers.get('content-type') ?? '' };
}

/** A fetch aborted by its timeout signal (a DOMException, not always `instanceof Error`). */
function isAbort(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}
