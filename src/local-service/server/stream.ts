import type { FastifyReply } from 'fastify';
import type { StreamFraming } from './context';

export interface ObjectStream {
  send(obj: unknown): void;
  end(): void;
  /** Aborted when the client goes away, so the answerer can stop. */
  signal: AbortSignal;
}

/**
 * Takes the reply over and writes JSON objects as `text/event-stream`: SSE (`data: {json}` + blank
 * line) or, like the hosted service, one object per line. Each object is written (and so flushed to
 * the socket) the moment it is sent.
 */
export function openObjectStream(reply: FastifyReply, framing: StreamFraming): ObjectStream {
  const raw = reply.raw;
  const controller = new AbortController();
  raw.on('close', () => {
    if (!raw.writableFinished) controller.abort();
  });
  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  return {
    send(obj) {
      if (raw.destroyed) return;
      const json = JSON.stringify(obj);
      raw.write(framing === 'sse' ? `data: ${json}\n\n` : `${json}\n`);
    },
    end() {
      if (!raw.destroyed) raw.end();
    },
    signal: controller.signal,
  };
}
