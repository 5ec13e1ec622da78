/**
 * Socket Mode's connection, kept up. The SDK's own reconnect gives up for good (an unhandled
 * rejection) when apps.connections.open fails once with an HTTP or network error, leaving the bridge
 * deaf: reconnecting is ours. Backoff: at once (Slack asked, or a blip), then 1 s doubling to 30 s.
 */
import type { SocketModeReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import { slackErrorCode } from './web';

const RECONNECT_MAX_MS = 30_000;

export interface SocketKeeper {
  connected(): boolean;
  /** No more reconnects (the surface stops). */
  stop(): void;
}

export function keepSocketConnected(socket: SocketModeReceiver, log: Logger): SocketKeeper {
  let connected = false;
  let stopping = false;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnecting = false;
  const reconnect = (): void => {
    if (stopping || reconnectTimer || reconnecting) return;
    const sm = socket.client;
    const delay = attempt === 0 ? 0 : Math.min(RECONNECT_MAX_MS, 1_000 * 2 ** (attempt - 1));
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (stopping) return;
      reconnecting = true;
      sm.start().then(
        () => {
          reconnecting = false;
        },
        (err: unknown) => {
          reconnecting = false;
          log.warn(
            { code: slackErrorCode(err) ?? (err as Error).message, attempt },
            'slack: Socket Mode reconnect failed, retrying',
          );
          reconnect();
        },
      );
    }, delay);
  };
  socket.client.on('connected', () => {
    connected = true;
    attempt = 0;
  });
  // Emitted when the socket closes (Slack's refresh, a dropped link, a missed pong) or a start fails.
  socket.client.on('disconnected', () => {
    connected = false;
    if (!stopping && !reconnecting) reconnect();
  });
  return {
    connected: () => connected,
    stop() {
      stopping = true;
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
    },
  };
}
