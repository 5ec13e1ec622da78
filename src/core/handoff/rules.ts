/**
 * Each office its own handoff rules. HANDOFF_ASSIGN, the offer, first-reply, claim and reminder
 * times, HANDOFF_ON_NO_ANSWER and LINK_HOSTS are the deployment's defaults; an office's admins change
 * them for their office (`/handoff settings <name> <value>`, kept in its office record), and the
 * handoff reads the office's value with the deployment's as the fallback. A setting is named by its
 * environment variable and validated as that variable is, with a message naming it and the fix.
 */
import type { TenantConfig } from '../context';
import type { OfficeHandoffRules } from '../tenants/office-record';
import { isHostName } from '../text/links';
import { DEFAULT_REMIND_MS } from './model';
import type { HandoffRuleName } from './rule-names';

/** The rules a ticket (and an answer with no answer, an answer's links) of one office follows. */
export interface HandoffRules {
  assign: 'round-robin' | 'none';
  offerMs: number;
  /** No response target when absent. */
  firstReplyMs?: number;
  claimTimeoutMs: number;
  remindMs: number;
  onNoAnswer: boolean;
  linkHosts: readonly string[];
}

type RuleKey = keyof HandoffRules & keyof OfficeHandoffRules;

interface RuleSpec {
  /** The environment variable that holds the deployment's default (and the setting's name). */
  name: HandoffRuleName;
  key: RuleKey;
  /** What the value must be, as the configuration check says it, and an example. */
  expected: string;
  example: string;
  parse(text: string): OfficeHandoffRules[RuleKey] | undefined;
  show(rules: HandoffRules): string;
}

const DEFAULT_OFFER_MS = 120_000;

function seconds(text: string): number | undefined {
  return /^\d+(\.\d+)?$/.test(text) && Number(text) > 0 ? Math.round(Number(text) * 1000) : undefined;
}

function secondsShown(ms: number | undefined): string {
  return ms === undefined || ms === 0 ? 'off' : `${ms / 1000} s`;
}

export const HANDOFF_RULES: readonly RuleSpec[] = [
  {
    name: 'HANDOFF_ASSIGN',
    key: 'assign',
    expected: 'must be round-robin or none',
    example: 'round-robin',
    parse: (v) => (/^(round-robin|none)$/i.test(v) ? (v.toLowerCase() as HandoffRules['assign']) : undefined),
    show: (r) => r.assign,
  },
  {
    name: 'HANDOFF_OFFER_S',
    key: 'offerMs',
    expected: 'must be a number of seconds greater than 0',
    example: '90',
    parse: seconds,
    show: (r) => secondsShown(r.offerMs),
  },
  {
    name: 'HANDOFF_FIRST_REPLY_S',
    key: 'firstReplyMs',
    expected: 'must be a number of seconds greater than 0, or off',
    example: '300',
    parse: (v) => (v.toLowerCase() === 'off' ? 0 : seconds(v)),
    show: (r) => secondsShown(r.firstReplyMs),
  },
  {
    name: 'HANDOFF_CLAIM_TIMEOUT_S',
    key: 'claimTimeoutMs',
    expected: 'must be a number of seconds greater than 0',
    example: '600',
    parse: seconds,
    show: (r) => secondsShown(r.claimTimeoutMs),
  },
  {
    name: 'HANDOFF_REMIND_S',
    key: 'remindMs',
    expected: 'must be a number of seconds greater than 0',
    example: '300',
    parse: seconds,
    show: (r) => secondsShown(r.remindMs),
  },
  {
    name: 'HANDOFF_ON_NO_ANSWER',
    key: 'onNoAnswer',
    expected: 'must be true or false',
    example: 'true',
    parse: (v) => (/^(true|false|1|0|yes|no|on|off)$/i.test(v) ? /^(true|1|yes|on)$/i.test(v) : undefined),
    show: (r) => String(r.onNoAnswer),
  },
  {
    name: 'LINK_HOSTS',
    key: 'linkHosts',
    expected:
      'must be host names separated by commas, like homes.example.com,docs.example.com (no https://, port or path)',
    example: 'homes.example.com,docs.example.com',
    parse: (v) => {
      const hosts = v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== '');
      return hosts.length > 0 && hosts.every(isHostName) ? hosts : undefined;
    },
    show: (r) => (r.linkHosts.length > 0 ? r.linkHosts.join(', ') : 'none'),
  },
];

/** The spec of a setting named as its variable (any case; `HANDOFF_` may be left out). */
export function ruleNamed(name: string): RuleSpec | undefined {
  const upper = name.trim().toUpperCase().replace(/-/g, '_');
  return HANDOFF_RULES.find((r) => r.name === upper || r.name === `HANDOFF_${upper}`);
}

/** The deployment's rules: the environment's variables, or their defaults. */
export function deploymentRules(config: TenantConfig): HandoffRules {
  const office = config.office;
  const rules: HandoffRules = {
    assign: office?.assign ?? 'none',
    offerMs: office?.offerMs ?? DEFAULT_OFFER_MS,
    claimTimeoutMs: config.handoffClaimTimeoutMs,
    remindMs: config.handoffRemindMs ?? DEFAULT_REMIND_MS,
    onNoAnswer: config.handoffOnNoAnswer,
    linkHosts: config.linkHosts ?? [],
  };
  if (office?.firstReplyMs !== undefined) rules.firstReplyMs = office.firstReplyMs;
  return rules;
}

/** The office's rules: each of its own values over the deployment's. */
export function officeRules(config: TenantConfig, own: OfficeHandoffRules | undefined): HandoffRules {
  const rules: HandoffRules = { ...deploymentRules(config) };
  if (!own) return rules;
  const { firstReplyMs, ...rest } = own;
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) Object.assign(rules, { [k]: v });
  if (firstReplyMs === 0) delete rules.firstReplyMs;
  else if (firstReplyMs !== undefined) rules.firstReplyMs = firstReplyMs;
  return rules;
}

/** Each rule in words, and whether the office set it or the deployment's applies. */
export function describeRules(
  config: TenantConfig,
  own: OfficeHandoffRules | undefined,
): Array<{ name: string; value: string; from: 'office' | 'deployment' }> {
  const rules = officeRules(config, own);
  return HANDOFF_RULES.map((r) => ({
    name: r.name,
    value: r.show(rules),
    from: own?.[r.key] !== undefined ? 'office' : 'deployment',
  }));
}
