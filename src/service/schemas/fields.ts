/**
 * Field builders whose validation messages name the field and what it allows, so the same text can
 * reach a user unchanged (client-side RequestValidationError, local service's envelope Message).
 */
import { z } from 'zod';

export function str(name: string) {
  return z.string({ required_error: `${name} is required`, invalid_type_error: `${name} must be a string` });
}

export function nonEmptyStr(name: string) {
  return str(name).trim().min(1, `${name} must not be empty`);
}

export function int(name: string) {
  return z
    .number({ required_error: `${name} is required`, invalid_type_error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`);
}

export function num(name: string) {
  return z
    .number({ required_error: `${name} is required`, invalid_type_error: `${name} must be a number` })
    .finite(`${name} must be a finite number`);
}

export function nonNegNum(name: string) {
  return num(name).min(0, `${name} must be 0 or more`);
}

export function bool(name: string) {
  return z.boolean({ required_error: `${name} is required`, invalid_type_error: `${name} must be true or false` });
}

export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const message = `${name} must be one of ${values.join(', ')}`;
  return z.enum(values as unknown as [T[number], ...T[number][]], {
    errorMap: (issue) => ({
      message:
        issue.code === 'invalid_type' && issue.received === 'undefined'
          ? `${name} is required (${values.join(', ')})`
          : message,
    }),
  });
}

const RGB = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;

/** Colours as the service stores them: `rgb(r,g,b)`, each 0-255. */
export function isRgb(value: string): boolean {
  const m = RGB.exec(value.trim());
  return m !== null && [m[1], m[2], m[3]].every((part) => Number(part) <= 255);
}

export function rgb(name: string) {
  return str(name).refine(isRgb, { message: `${name} must look like rgb(37,99,235) (r, g, b from 0 to 255)` });
}

/** http(s) URL; '' clears the setting. */
export function httpUrl(name: string) {
  return str(name).refine((v) => v === '' || /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(v), {
    message: `${name} must be an http(s) URL like https://example.com/page`,
  });
}

/** E-mail address; '' clears the setting. */
export function email(name: string) {
  return str(name).refine((v) => v === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), {
    message: `${name} must be an e-mail address like name@example.com`,
  });
}

export interface FieldIssue {
  /** Dotted path of the member in the request (`ExtensionColumn.0.Key`), '' for the whole body. */
  field: string;
  message: string;
}

/** zod issues as {field, message}; messages built above already name the field. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    const field = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      return {
        field: issue.keys.join(', '),
        message: `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`,
      };
    }
    if (issue.code === 'invalid_type' && issue.expected === 'object' && field === '') {
      return { field, message: 'the body must be a JSON object' };
    }
    // zod's default texts don't name the field: prefix the path when the message lacks it.
    const lastKey = issue.path.length > 0 ? String(issue.path[issue.path.length - 1]) : '';
    const named = lastKey !== '' && issue.message.includes(lastKey);
    return { field, message: named || field === '' ? issue.message : `${field}: ${issue.message}` };
  });
}

/** One line naming every bad field. */
export function describeIssues(issues: FieldIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}
