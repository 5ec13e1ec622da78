/**
 * The tests' one logger: silent, unless TEST_LOG_LEVEL names a level (to read what a failing test's
 * bridge said: `TEST_LOG_LEVEL=debug npx jest <file>`).
 */
import pino from 'pino';

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
