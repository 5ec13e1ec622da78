/**
 * A surface as the app wires it (Slack, Discord, the shell): the port core speaks to, and the
 * lifecycle around it. Each surface's factory returns one (adding what only it has); app.ts starts,
 * attaches and stops them all the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BridgeCore, SurfacePort } from '../core/surface';

export interface SurfaceRuntime {
  surface: SurfacePort;
  /** Hands the surface the core it calls; events before this are answered "starting up". */
  attach(core: BridgeCore): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  isReady(): boolean;
  /** An HTTP endpoint the app mounts (Slack's POST /slack/events in HTTP mode). */
  requestListener?: (req: IncomingMessage, res: ServerResponse) => void;
}
