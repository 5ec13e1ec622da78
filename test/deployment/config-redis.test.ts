/**
 * STATE_URL's Redis forms (one server, TLS, Redis Cluster) and REDIS_TLS_VERIFY, as the configuration
 * check sees them: a bad value stops start-up with a message naming the variable.
 */
import { ConfigError, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';

function problemsOf(env: Record<string, string>): Array<{ variable: string; message: string }> {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('STATE_URL for Redis', () => {
  it.each([
    'redis://127.0.0.1:6379/2',
    'rediss://:secret@redis.example.com:6380',
    'redis+cluster://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000',
    'rediss+cluster://user:secret@node-1.example.com:6379,node-2.example.com:6379/0',
  ])('accepts %s', (url) => {
    expect(loadConfig({ STATE_URL: url }).state).toEqual({ kind: 'redis', url });
  });

  it.each([
    'redis+cluster://',
    'redis+cluster://a:7000,,b:7000',
    'redis+cluster://a:99999',
    'redis+cluster://a:7000/3',
    'redis+cluster://a b:7000',
    'rediss://:secret@/0',
  ])('refuses %j naming STATE_URL and every accepted form', (url) => {
    const problems = problemsOf({ STATE_URL: url });
    expect(problems.map((p) => p.variable)).toEqual(['STATE_URL']);
    expect(problems[0]!.message).toContain('redis+cluster://');
    expect(problems[0]!.message).toContain('sqlite:<path>');
  });

  it('says what is wrong with a Redis URL', () => {
    expect(problemsOf({ STATE_URL: 'redis+cluster://a:7000/3' })[0]!.message).toMatch(
      /^is not a valid Redis Cluster URL \(a cluster has only database 0; drop the \/db path\)/,
    );
    expect(problemsOf({ STATE_URL: 'redis://h:1/x' })[0]!.message).toMatch(/database must be a number/);
    expect(problemsOf({ STATE_URL: 'postgres://h/db' })[0]!.message).toMatch(/^must be sqlite:<path>/);
  });

  it('redacts the password of a cluster URL and of a TLS URL', () => {
    const cluster = loadConfig({ STATE_URL: 'rediss+cluster://user:pw-xyz@a:7000,b:7000' });
    expect(redactConfig(cluster).stateUrl).toBe('rediss+cluster://user:***@a:7000,b:7000');
    expect(JSON.stringify(redactConfig(cluster))).not.toContain('pw-xyz');
    const single = loadConfig({ STATE_URL: 'rediss://:pw-xyz@redis.example.com:6380/0' });
    expect(redactConfig(single).state).toEqual({ kind: 'redis', url: 'rediss://:***@redis.example.com:6380/0' });
  });
});

describe('REDIS_TLS_VERIFY', () => {
  it('defaults to true and reads false (certificate verification off)', () => {
    expect(loadConfig({}).redisTlsVerify).toBe(true);
    expect(loadConfig({ REDIS_TLS_VERIFY: 'false' }).redisTlsVerify).toBe(false);
    expect(loadConfig({ REDIS_TLS_VERIFY: 'true' }).redisTlsVerify).toBe(true);
    expect(loadConfig({ REDIS_TLS_VERIFY: '' }).redisTlsVerify).toBe(true);
  });

  it('refuses anything else, naming the variable and what false does', () => {
    const problems = problemsOf({ REDIS_TLS_VERIFY: 'maybe' });
    expect(problems).toEqual([
      {
        variable: 'REDIS_TLS_VERIFY',
        message: 'must be true or false (false turns off TLS certificate verification of a rediss:// STATE_URL)',
      },
    ]);
  });
});
