/** manifest.yml installs the app the code implements: same commands, same endpoint, needed scopes. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { z } from 'zod';
import { COMMAND_SPECS } from '../src/core/commands/catalogue';

const manifestSchema = z.object({
  display_information: z.object({ name: z.string().min(1), description: z.string().min(1) }),
  features: z.object({
    bot_user: z.object({ display_name: z.string().min(1) }),
    slash_commands: z.array(
      z.object({ command: z.string(), url: z.string(), description: z.string().min(1), usage_hint: z.string().min(1) }),
    ),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    event_subscriptions: z.object({ request_url: z.string(), bot_events: z.array(z.string()) }),
    interactivity: z.object({ is_enabled: z.literal(true), request_url: z.string() }),
    socket_mode_enabled: z.literal(false),
  }),
});

const root = join(__dirname, '..');
const raw: unknown = parse(readFileSync(join(root, 'manifest.yml'), 'utf8'));
const manifest = manifestSchema.parse(raw);

/**
 * Slack's published manifest schemas: the team's shared copy beside the clone when present (the
 * newest), else the copy kept in the repository, so the test runs wherever the repo is checked out.
 */
const SHARED_SCHEMAS = join(root, '..', 'shared', 'schemas', 'slack-manifest');
const schemaDir = existsSync(join(SHARED_SCHEMAS, 'manifest.schema.json'))
  ? SHARED_SCHEMAS
  : join(root, 'test', 'fixtures', 'slack-manifest');
const SCHEMA_BASE = 'https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/';

function slackManifestValidator(): (data: unknown) => { valid: boolean; errors: string[] } {
  const read = (name: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(schemaDir, name), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The entry schema refers to the versioned ones by their published URLs.
  for (const name of ['manifest.schema.1.0.0.json', 'manifest.schema.2.0.0.json'])
    ajv.addSchema(read(name), `${SCHEMA_BASE}${name}`);
  const validate = ajv.compile(read('manifest.schema.json'));
  return (data) => {
    const valid = validate(data) as boolean;
    return { valid, errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`) };
  };
}

const agentSchema = z.object({
  features: z.object({
    agent_view: z.object({
      agent_description: z.string().min(1).max(300),
      suggested_prompts: z
        .array(z.object({ title: z.string().min(1), message: z.string().min(1) }))
        .min(1)
        .max(4),
      actions: z.array(z.object({ name: z.string().min(1), description: z.string().min(1) })),
    }),
  }),
});

describe('manifest.yml', () => {
  test("validates against Slack's manifest JSON schema", () => {
    const result = slackManifestValidator()(raw);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('the schema check catches a broken manifest (an agent description over 300 characters, 5 prompts)', () => {
    const broken = JSON.parse(JSON.stringify(raw)) as { features: { agent_view: Record<string, unknown> } };
    broken.features.agent_view.agent_description = 'x'.repeat(301);
    expect(slackManifestValidator()(broken).valid).toBe(false);
    const many = JSON.parse(JSON.stringify(raw)) as { features: { agent_view: { suggested_prompts: unknown[] } } };
    const prompts = many.features.agent_view.suggested_prompts;
    many.features.agent_view.suggested_prompts = [...prompts, ...prompts].slice(0, 5);
    expect(slackManifestValidator()(many).valid).toBe(false);
  });

  test("declares the agent experience: a description, up to four prompts from the demo's cities, quick actions", () => {
    const raw2 = raw as { features: Record<string, unknown> };
    expect(raw2.features.assistant_view).toBeUndefined();
    const a = agentSchema.parse(raw).features.agent_view;
    expect(a.agent_description.length).toBeLessThanOrEqual(300);
    expect(a.suggested_prompts.length).toBeGreaterThanOrEqual(1);
    for (const p of a.suggested_prompts) expect(p.message).toMatch(/Austin|Denver|Miami|Seattle/);
    expect(a.actions.map((x) => x.name)).toEqual(['Search listings', 'Talk to a human']);
  });

  test("lists exactly the grammar's commands, with the catalogue's descriptions and usage hints", () => {
    const listed = manifest.features.slash_commands.map((c) => ({
      command: c.command,
      description: c.description,
      usage_hint: c.usage_hint,
    }));
    const catalogue = COMMAND_SPECS.map((s) => ({
      command: `/${s.name}`,
      description: s.summary,
      usage_hint: s.usageHint,
    }));
    expect(listed).toEqual(catalogue);
  });

  test('sends commands, events and interactivity to /slack/events', () => {
    const urls = [
      ...manifest.features.slash_commands.map((c) => c.url),
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
    ];
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
  });

  test('subscribes to the agent experience (app_home_opened, app_context_changed, message.im) and asks exactly the scopes it needs, assistant:write kept', () => {
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual([
      'app_context_changed',
      'app_home_opened',
      'app_mention',
      // a workspace leaves (OAuth mode deletes its installation and records)
      'app_uninstalled',
      // a listing link pasted (a Work Object) and its flexpane opened
      'entity_details_requested',
      'link_shared',
      'message.channels',
      'message.groups',
      'message.im',
      'tokens_revoked',
    ]);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual(
      [
        'app_mentions:read',
        'assistant:write',
        'channels:history',
        'channels:read',
        'chat:write',
        'commands',
        'files:read',
        'files:write',
        'groups:history',
        'groups:read',
        'im:history',
        'links:read',
        'links:write',
        'users:read',
      ].sort(),
    );
  });

  test('the Procfile runs node directly so SIGTERM reaches the process', () => {
    // Process lines only: Procfile runners (Heroku, foreman, honcho) skip the comment lines.
    const processes = readFileSync(join(root, 'Procfile'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(processes).toEqual(['web: node dist/main.js']);
  });
});
