/**
 * A whole core in one process for tests: the local chatbot service (real HTTP on 127.0.0.1), a
 * ChatbotClient to it, a SQLite store (a file in a temp dir by default, so a restart can be tested),
 * TestSurfaces (each with its own gateway when given budgets), the relay, and the Bridge.
 *
 *   const h = await startCoreHarness();
 *   const inv = h.invocation(h.users.alice);            // a slash command / button / form event
 *   await h.bridge.command(inv, 'ask', 'Which homes are for sale in Austin?');
 *   await waitFor(() => ..., 'what', timeoutMs);    // fakes/wait-for.ts
 *   await h.close();
 *
 * Cross-surface handoff: `startCoreHarness({ handoffOn: 'other' })` puts the handoff channel on a
 * second TestSurface registered under the name 'discord' (`h.handoffSurface`, `h.handoffPort`).
 */
import { requestTenant } from '../../src/core/tenants/tenant';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Bridge } from '../../src/core/bridge';
import type { CommandHandlers, CoreConfig, CoreContext, SurfaceRegistry } from '../../src/core/context';
import { CoreMemory } from '../../src/core/memory';
import type {
  Actor,
  FormSpec,
  Invocation,
  MessageRef,
  OutMessage,
  Place,
  SurfaceName,
  SurfacePort,
} from '../../src/core/surface';
import { Relay } from '../../src/core/relay';
import { startLocalService, type LocalServiceHandle, type LocalServiceOptions } from '../../src/local-service';
import { ChatbotClient } from '../../src/service/client';
import { SqliteStore } from '../../src/state/sqlite-store';
import { TEST_SURFACE, TestSurface, type TestSurfaceOptions } from './test-surface';
import { untrusted } from '../../src/core/text/untrusted';
import { silentLog } from './silent-log';

type LocalService = LocalServiceHandle;

export interface CoreHarnessOptions {
  /** SQLite file; default a fresh file in a temp dir. ':memory:' for no file. */
  storePath?: string;
  /** Reuse a running local service (restart tests keep the service, like production does). */
  service?: LocalService;
  /** Options of the local service this harness starts (e.g. fragmentDelayMs to watch streams). */
  serviceOptions?: LocalServiceOptions;
  /** Reuse surfaces (restart tests: messages posted before the restart stay visible). */
  surface?: TestSurface;
  handoffSurface?: TestSurface;
  /** 'same': the handoff channel is on the user's surface; 'other': on a second surface. Default 'same'. */
  handoffOn?: 'same' | 'other' | 'none';
  handoffOnNoAnswer?: boolean;
  handoffClaimTimeoutMs?: number;
  answerIdleTimeoutMs?: number;
  /** USER_RATE_LIMIT: commands, button presses and form submits per person a minute (default: off). */
  userRateLimit?: number;
  /** RETENTION_DAYS in ms (default: the bridge's 90 days). */
  retentionMs?: number;
  instanceId?: string;
  /** The commands besides ask and handoff (e.g. commandHandlers() of src/core/commands). */
  commands?: CommandHandlers;
  surfaceOptions?: TestSurfaceOptions;
  /** Start the bridge's timers (default true). */
  start?: boolean;
  /** INSTANCE_LEASE_S in ms (default the bridge's): a short one makes sweeps retry queues sooner. */
  leaseTtlMs?: number;
  /** The SQLite store on the harness's file (default a plain SqliteStore): a test's faulty one. */
  openStore?: (path: string) => SqliteStore;
  log?: Logger;
}

export interface RecordedReply {
  msg: OutMessage;
  ephemeral: boolean;
  ref?: MessageRef;
}

export interface RecordedInvocation extends Invocation {
  replies: RecordedReply[];
  updates: OutMessage[];
  forms: FormSpec[];
  /** Texts of every reply and update, newest last (handy in assertions). */
  texts(): string[];
}

export interface CoreHarness {
  service: LocalService;
  client: ChatbotClient;
  store: SqliteStore;
  storePath: string;
  /** The users' surface (named TEST_SURFACE). */
  surface: TestSurface;
  /** Where tickets go: `surface` itself, or a second TestSurface when handoffOn is 'other'. */
  handoffSurface: TestSurface;
  /** `handoffSurface` as core sees it (named 'discord' when on the other surface). */
  handoffPort: SurfacePort;
  /** A channel on `surface` where users type commands. */
  channel: Place;
  /** The handoff channel. */
  handoffChannel: Place;
  users: { alice: Actor; bob: Actor; admin: Actor };
  agents: { ann: Actor; andy: Actor };
  ctx: CoreContext;
  config: CoreConfig;
  relay: Relay;
  bridge: Bridge;
  /** An Invocation by `actor` in `place` (default: `channel`) whose replies, updates and forms are recorded. */
  invocation(actor: Actor, place?: Place, opts?: { surface?: SurfacePort; source?: MessageRef }): RecordedInvocation;
  /** Hands a typed message to the bridge, as a surface would (a fresh id unless given). */
  say(
    actor: Actor,
    place: Place,
    text: string,
    opts?: {
      id?: string;
      startsConversation?: boolean;
      surface?: SurfacePort;
      attachments?: import('../../src/core/surface').Attachment[];
    },
  ): Promise<boolean>;
  /** Stops the bridge and closes the store (keeping the file), then builds a new store and Bridge on it. */
  restart(): Promise<CoreHarness>;
  /** Stops the bridge and closes everything this harness started. */
  close(): Promise<void>;
}

export const HARNESS_WORKSPACE = 'W1';

/** Presents a TestSurface under another surface name (for a TestSurface built elsewhere; a new one can be named with its `name` option). */
export function renamedSurface(inner: TestSurface, name: SurfaceName): SurfacePort {
  return {
    name,
    limits: inner.limits,
    post: (place, msg, o) => inner.post(place, msg, o),
    edit: (ref, msg, o) => inner.edit(ref, msg, o),
    startThread: (place, root, title) => inner.startThread(place, root, title),
    notify: (place, user, msg) => inner.notify(place, user, msg),
    mention: (user) => inner.mention(user),
    fetchAttachment: (att) => inner.fetchAttachment(att),
    streaming: inner.streaming,
    budgets: inner.budgets,
    directory: inner.directory,
    status: inner.status,
  };
}

let messageCounter = 0;

/** What a restarted harness inherits the duty to clean up. */
interface Inherited {
  ownsService: boolean;
  tmpDir?: string;
}

export async function startCoreHarness(opts: CoreHarnessOptions = {}, inherited?: Inherited): Promise<CoreHarness> {
  const log = opts.log ?? silentLog;
  const ownsService = inherited?.ownsService ?? !opts.service;
  const service = opts.service ?? (await startLocalService({ port: 0, dbPath: ':memory:', ...opts.serviceOptions }));
  const client = new ChatbotClient({
    baseUrl: service.url,
    secretKey: service.credentials.secretKey,
    sessionKey: service.credentials.sessionKey,
    apiKey: service.credentials.apiKey,
    retries: { count: 3, baseDelayMs: 20 },
  });

  let tmpDir: string | undefined = inherited?.tmpDir;
  let storePath = opts.storePath;
  if (storePath === undefined) {
    tmpDir = mkdtempSync(join(tmpdir(), 'core-harness-'));
    storePath = join(tmpDir, 'bridge.db');
  }
  const store = opts.openStore ? opts.openStore(storePath) : new SqliteStore(storePath);

  const surface = opts.surface ?? new TestSurface(opts.surfaceOptions);
  const handoffOn = opts.handoffOn ?? 'same';
  const handoffSurface =
    handoffOn === 'other' ? (opts.handoffSurface ?? new TestSurface(opts.surfaceOptions)) : surface;
  const handoffPort: SurfacePort = handoffOn === 'other' ? renamedSurface(handoffSurface, 'discord') : surface;
  const ports = new Map<SurfaceName, SurfacePort>([[surface.name, surface]]);
  if (handoffOn === 'other') ports.set('discord', handoffPort);
  const surfaces: SurfaceRegistry = { get: (name) => ports.get(name), all: () => [...ports.values()] };

  const channel: Place = { surface: TEST_SURFACE, workspace: HARNESS_WORKSPACE, channel: 'C-general' };
  const handoffChannel: Place =
    handoffOn === 'other'
      ? { surface: 'discord', workspace: 'G1', channel: 'C-handoff' }
      : { surface: TEST_SURFACE, workspace: HARNESS_WORKSPACE, channel: 'C-handoff' };

  const instanceId = opts.instanceId ?? `harness-${process.pid}-${++messageCounter}`;
  const config: CoreConfig = {
    chatbotId: service.chatbotId,
    answerIdleTimeoutMs: opts.answerIdleTimeoutMs ?? 5000,
    handoff:
      handoffOn === 'none'
        ? {}
        : {
            [handoffChannel.surface]: {
              surface: handoffChannel.surface,
              workspace: handoffChannel.workspace,
              channel: handoffChannel.channel,
            },
          },
    handoffClaimTimeoutMs: opts.handoffClaimTimeoutMs ?? 10 * 60_000,
    handoffOnNoAnswer: opts.handoffOnNoAnswer ?? false,
    instanceId,
    ...(opts.retentionMs !== undefined ? { retentionMs: opts.retentionMs } : {}),
    ...(opts.userRateLimit !== undefined ? { userRateLimit: opts.userRateLimit } : {}),
    ...(opts.leaseTtlMs !== undefined ? { leaseTtlMs: opts.leaseTtlMs } : {}),
  };
  const ctx: CoreContext = { client, store, config, surfaces, log, now: () => Date.now(), memory: new CoreMemory() };
  const relay = new Relay({ store, log, instanceId, now: ctx.now });
  const bridge = new Bridge(ctx, {
    relay,
    commands: opts.commands,
  });
  if (opts.start ?? true) bridge.start();

  const users = {
    alice: { id: 'U-alice', name: 'Alice', isAdmin: false },
    bob: { id: 'U-bob', name: 'Bob', isAdmin: false },
    admin: { id: 'U-admin', name: 'Ada Admin', isAdmin: true },
  };
  const agents = {
    ann: { id: 'A-ann', name: 'Ann Agent', isAdmin: false },
    andy: { id: 'A-andy', name: 'Andy Agent', isAdmin: false },
  };
  // The agents are the handoff channel's members (who is an agent: core/handoff/who.ts).
  if (!handoffSurface.members.has(handoffChannel.channel))
    handoffSurface.members.set(handoffChannel.channel, new Set([agents.ann.id, agents.andy.id]));

  let closed = false;
  const shutdown = async (keepFile: boolean): Promise<void> => {
    if (closed) return;
    closed = true;
    await bridge.stop(2000);
    await store.close();
    if (!keepFile && tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  };

  const harness: CoreHarness = {
    service,
    client,
    store,
    storePath,
    surface,
    handoffSurface,
    handoffPort,
    channel,
    handoffChannel,
    users,
    agents,
    ctx,
    config,
    relay,
    bridge,
    invocation(actor, place = channel, o = {}) {
      const on = o.surface ?? ports.get(place.surface) ?? surface;
      const replies: RecordedReply[] = [];
      const updates: OutMessage[] = [];
      const forms: FormSpec[] = [];
      return {
        tenant: requestTenant(place),
        surface: on,
        place,
        actor,
        for: { id: actor.id, name: actor.name },
        source: o.source,
        replies,
        updates,
        forms,
        async reply(msg, ro) {
          const ephemeral = ro?.ephemeral ?? false;
          if (ephemeral) {
            replies.push({ msg, ephemeral });
            return undefined;
          }
          const ref = await on.post(place, msg);
          replies.push({ msg, ephemeral, ref });
          return ref;
        },
        async update(msg) {
          updates.push(msg);
          if (o.source) await on.edit(o.source, msg);
        },
        async openForm(form) {
          forms.push(form);
        },
        texts() {
          return [...replies.map((r) => r.msg.text), ...updates.map((u) => u.text)];
        },
      };
    },
    say(actor, place, text, o = {}) {
      const on = o.surface ?? ports.get(place.surface) ?? surface;
      return bridge.message(
        {
          tenant: requestTenant(place),
          surface: on,
          place,
          actor,
          for: { id: actor.id, name: actor.name },
          text: untrusted(text),
          id: o.id ?? `m${Date.now()}-${++messageCounter}`,
          attachments: o.attachments ?? [],
          startsConversation: o.startsConversation ?? false,
        },
        on,
      );
    },
    async restart() {
      await shutdown(true);
      return startCoreHarness({ ...opts, storePath, service, surface, handoffSurface, log }, { ownsService, tmpDir });
    },
    async close() {
      await shutdown(false);
      if (ownsService) await service.close();
    },
  };
  return harness;
}
