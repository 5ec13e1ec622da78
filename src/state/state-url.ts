/**
 * STATE_URL as the configuration check reads it: which store it names, or what is wrong with it
 * (openStore opens what it names).
 */
import { isRedisUrl, parseRedisUrl, REDIS_FORMS } from './redis-url';

export type StateTarget = { kind: 'sqlite'; path: string } | { kind: 'redis'; url: string };

const FORMS = `sqlite:<path> (e.g. sqlite:./data/bridge.db), ${REDIS_FORMS}`;

export function parseStateUrl(v: string): StateTarget | undefined {
  return stateUrlProblem(v) === undefined ? target(v) : undefined;
}

/** Undefined when STATE_URL is usable; otherwise the problem, worded to follow "STATE_URL: ". */
export function stateUrlProblem(v: string): string | undefined {
  if (isRedisUrl(v)) {
    try {
      parseRedisUrl(v, `accepted forms: ${FORMS}`);
      return undefined;
    } catch (err) {
      // A Redis URL says what is wrong with it (e.g. a database path on a cluster).
      return (err as Error).message.replace(/^STATE_URL /, '');
    }
  }
  return target(v) === undefined ? `must be ${FORMS}` : undefined;
}

function target(v: string): StateTarget | undefined {
  if (isRedisUrl(v)) return { kind: 'redis', url: v };
  const m = /^sqlite:(.+)$/i.exec(v);
  if (m?.[1] && m[1].trim() !== '') return { kind: 'sqlite', path: m[1].replace(/^\/\/(?=\/)/, '') };
  return undefined;
}
