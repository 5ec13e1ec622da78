import type { MediaKind } from '../../service/schemas';

export type FileFormat =
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'animated-gif'
  | 'webp'
  | 'wav'
  | 'mp4'
  | 'mkv'
  | 'avi'
  | 'flv'
  | 'mpeg';

const KIND_OF: Record<FileFormat, MediaKind | undefined> = {
  png: 'Image',
  jpeg: 'Image',
  gif: 'Image',
  webp: 'Image',
  'animated-gif': undefined,
  wav: 'Audio',
  mp4: 'Video',
  mkv: 'Video',
  avi: 'Video',
  flv: 'Video',
  mpeg: 'Video',
};

const EXTENSIONS: Record<string, FileFormat> = {
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  gif: 'gif',
  webp: 'webp',
  wav: 'wav',
  mp4: 'mp4',
  mkv: 'mkv',
  avi: 'avi',
  flv: 'flv',
  mpeg: 'mpeg',
  mpg: 'mpeg',
};

const ascii = (b: Buffer, start: number, end: number): string => b.subarray(start, end).toString('latin1');

/** The format the bytes declare, by their magic numbers; undefined when unrecognised. */
export function sniffFormat(b: Buffer): FileFormat | undefined {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a'))
    return isAnimatedGif(b) ? 'animated-gif' : 'gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF') {
    const form = ascii(b, 8, 12);
    if (form === 'WEBP') return 'webp';
    if (form === 'WAVE') return 'wav';
    if (form === 'AVI ') return 'avi';
  }
  if (b.length >= 8 && ascii(b, 4, 8) === 'ftyp') return 'mp4';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'mkv';
  if (b.length >= 3 && ascii(b, 0, 3) === 'FLV') return 'flv';
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 1 && (b[3] === 0xba || b[3] === 0xb3)) return 'mpeg';
  return undefined;
}

/** A GIF is animated when it loops (NETSCAPE2.0 extension) or carries more than one frame. */
function isAnimatedGif(b: Buffer): boolean {
  if (b.includes('NETSCAPE2.0', 0, 'latin1')) return true;
  let frames = 0;
  // Graphic control extensions (21 F9 04) precede each frame of an animation.
  for (
    let i = b.indexOf(Buffer.from([0x21, 0xf9, 0x04]));
    i !== -1;
    i = b.indexOf(Buffer.from([0x21, 0xf9, 0x04]), i + 3)
  ) {
    if (++frames > 1) return true;
  }
  return false;
}

/** The format by the file's name, when the bytes say nothing. */
export function formatByName(fileName: string): FileFormat | undefined {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/** Bytes first (they don't lie about content), then the name. */
export function judgeFormat(fileName: string, bytes: Buffer): FileFormat | undefined {
  return sniffFormat(bytes) ?? formatByName(fileName);
}

export function kindOfFormat(f: FileFormat | undefined): MediaKind | undefined {
  return f ? KIND_OF[f] : undefined;
}
