/**
 * The surface as the work of a tenant that may leave uses it: once the tenant has left (`left`
 * aborted), no platform call goes out for that work. A call made after it is refused at once, and a
 * call made before it that still waits for the platform's budget is refused when it would go out
 * (its `latest` is read then: every surface's gateway reads it just before the platform call).
 * The status line is cosmetic, so it is skipped quietly instead. Budgets and names are no platform
 * calls and pass through.
 */
import type { NativeStream, OutMessage, SendOptions, StreamingPort, SurfacePort } from '../surface';

/** What a call for a tenant that has left fails with: nothing was sent. */
export class TenantLeftError extends Error {
  constructor() {
    super('the workspace has removed the app');
    this.name = 'TenantLeftError';
  }
}

/** Throws once `left` has aborted. */
function checkFor(left: AbortSignal): () => void {
  return () => {
    if (left.aborted) throw new TenantLeftError();
  };
}

/** `opts` whose `latest` (the message itself when none) is read only while the tenant is still there. */
function gatedOpts(check: () => void, msg: OutMessage, opts: SendOptions = {}): SendOptions {
  const latest = opts.latest;
  return {
    ...opts,
    latest: () => {
      check();
      return latest ? latest() : msg;
    },
  };
}

function gatedStream(stream: NativeStream, check: () => void): NativeStream {
  return {
    ref: stream.ref,
    get expiresAt() {
      return stream.expiresAt;
    },
    async append(text, opts = {}) {
      check();
      const latest = opts.latest;
      return stream.append(text, {
        ...opts,
        latest: () => {
          check();
          return latest ? latest() : text;
        },
      });
    },
    async stop(finalMessage) {
      check();
      await stream.stop(finalMessage);
    },
  };
}

function gatedStreaming(streaming: StreamingPort, check: () => void): StreamingPort {
  return {
    async startNativeStream(place, first, opts = {}) {
      check();
      const latest = opts.latest;
      const stream = await streaming.startNativeStream(place, first, {
        ...opts,
        latest: () => {
          check();
          return latest ? latest() : first;
        },
      });
      return stream ? gatedStream(stream, check) : undefined;
    },
    async stopNativeStream(ref, final, opts) {
      check();
      await streaming.stopNativeStream(ref, final, opts);
    },
  };
}

/** `surface` for work that stops when `left` aborts (see the header). */
export function leftGatedPort(surface: SurfacePort, left: AbortSignal): SurfacePort {
  return gatedPort(surface, checkFor(left), () => left.aborted);
}

/**
 * `surface` whose every platform call runs `check` first, and again just before it goes out (its
 * `latest`): a throw refuses it. The status line is skipped quietly once `stopped()`. Also used for
 * work that lost its lease (core/held-lease.ts).
 */
export function gatedPort(surface: SurfacePort, check: () => void, stopped: () => boolean): SurfacePort {
  // A call checked first: refused, never sent, once the tenant has left.
  const gated =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      check();
      return call(...args);
    };
  const d = surface.directory;
  return {
    name: surface.name,
    limits: surface.limits,
    budgets: surface.budgets,
    streaming: surface.streaming ? gatedStreaming(surface.streaming, check) : undefined,
    mention: (user) => surface.mention(user),
    post: gated((place, msg, opts) => surface.post(place, msg, gatedOpts(check, msg, opts))),
    edit: gated((ref, msg, opts) => surface.edit(ref, msg, gatedOpts(check, msg, opts))),
    startThread: gated((place, root, title) => surface.startThread(place, root, title)),
    notify: gated((place, user, msg) => surface.notify(place, user, msg)),
    fetchAttachment: gated((att) => surface.fetchAttachment(att)),
    status: {
      setStatus: async (place, status) => {
        if (!stopped()) await surface.status.setStatus(place, status);
      },
    },
    directory: {
      permalink: gated((ref) => d.permalink(ref)),
      channelName: gated((place) => d.channelName(place)),
      isMember: gated((channel, userId) => d.isMember(channel, userId)),
      cannotPostIn: gated((channel) => d.cannotPostIn(channel)),
      channelAgents: gated((channel) => d.channelAgents(channel)),
      mentionGroup: (id) => d.mentionGroup(id),
      stripButtons: gated((thread, actions) => d.stripButtons(thread, actions)),
    },
  };
}
