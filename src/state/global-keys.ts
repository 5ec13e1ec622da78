/**
 * What stays outside the tenants' parts of the store (state/tenant-store.ts), in one list with the
 * reason for each family. Every other record of a tenant lives under its prefix `t:<kind>:<id>:` and
 * goes with it when it leaves (forgetTenantKeys, by prefix). `test/e2e/retention/tenant-parts.test.ts`
 * reads every key on Redis after two workspaces used the bridge and allows, outside their parts,
 * only these.
 *
 * `kv` families are value keys (by the start of the key); the other structures are named by kind.
 */
export interface GlobalFamily {
  /** How the key starts (a value key), or the structure (`lease`, `rate`, `outbox`, `due`). */
  readonly prefix: string;
  readonly structure: 'kv' | 'lease' | 'rate' | 'outbox' | 'due';
  readonly why: string;
}

export const GLOBAL_FAMILIES: readonly GlobalFamily[] = [
  {
    prefix: 'slack:installation:',
    structure: 'kv',
    why: 'a Slack installation: read by Bolt before any tenant is known (a workspace, else its enterprise), and walked by the token refresh sweep; deleted by its exact key when the workspace leaves',
  },
  {
    prefix: 'slack:oauth-state',
    structure: 'kv',
    why: 'the install flow’s one-time states: no workspace exists yet; expire in minutes',
  },
  {
    prefix: 'slack:button-records:since',
    structure: 'kv',
    why: 'when this deployment began recording its buttons’ messages: one mark for the deployment, no workspace’s',
  },
  {
    prefix: 'chatbot-tenant:',
    structure: 'kv',
    why: 'which tenants’ connections name a chatbot (by a digest of its id): a tenant that leaves learns whether another still uses its chatbot without reading their parts; deleted by its exact key',
  },
  {
    prefix: 'settings:applied:',
    structure: 'kv',
    why: 'a chatbot’s applied settings: one chatbot serves every tenant of an office (and the shared chatbot every tenant on it)',
  },
  {
    prefix: 'ticket',
    structure: 'kv',
    why: 'tickets and their open, late, thread and message lookups: a ticket can cross tenants of one office (a Discord user’s ticket in a Slack channel), and the sweeps walk them',
  },
  {
    prefix: 'convpending:',
    structure: 'kv',
    why: 'the queues an instance left behind, walked by every instance’s sweep; the value names the tenant whose part holds the queue',
  },
  {
    prefix: 'inflight:',
    structure: 'kv',
    why: 'answers being streamed, walked by crash recovery on every instance',
  },
  {
    prefix: 'askintent:',
    structure: 'kv',
    why: '`/ask`s not yet queued, walked by the sweep on every instance',
  },
  {
    prefix: 'tenant-left:',
    structure: 'kv',
    why: 'a tenant that left, by a digest of its id: every instance stops its answers in flight',
  },
  {
    prefix: 'limit:flood:',
    structure: 'kv',
    why: 'a person’s flood limit, by surface and user: a Discord user is one person in every server',
  },
  {
    prefix: 'leadopened:',
    structure: 'kv',
    why: 'a person’s “lead opened” mark, by surface and user (as the flood limit)',
  },
  {
    prefix: 'leads',
    structure: 'kv',
    why: 'the day’s leads digest per office (an office is a chatbot, shared by its tenants)',
  },
  {
    prefix: 'mail',
    structure: 'kv',
    why: 'the mail outbox’s marks: a mail is owed by an office, not one tenant',
  },
  {
    prefix: 'layout:tenant-parts',
    structure: 'kv',
    why: 'one mark for the deployment: its store holds no record of the layout before the tenants’ parts (old-layout.ts), so no read looks there',
  },
  {
    prefix: 'notice-mark:',
    structure: 'kv',
    why: 'the ticket outbox’s own marks (tickets are global, above)',
  },
  { prefix: '', structure: 'lease', why: 'leases: one name per thing, whoever holds it; expire in seconds' },
  {
    prefix: '',
    structure: 'rate',
    why: 'rate-budget logs (a platform’s budgets per workspace and channel): not listed by the store, empty themselves within their window',
  },
  {
    prefix: '',
    structure: 'outbox',
    why: 'the outboxes (ticket notices, mail): carried out by whichever instance drains them',
  },
  {
    prefix: '',
    structure: 'due',
    why: 'the sweeps’ due-indexes (open tickets and the like, by when they are due): read by every instance’s sweep instead of walking every record',
  },
];

/** Whether a value key outside every tenant's part is one of the global families. */
export function isGlobalKey(key: string): boolean {
  return GLOBAL_FAMILIES.some((f) => f.structure === 'kv' && key.startsWith(f.prefix));
}
