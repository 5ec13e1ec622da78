/**
 * The house rules of the source, checked over every file in src/ with the TypeScript compiler:
 * no function (declaration, method, arrow, function expression, accessor, constructor) over
 * MAX_FUNCTION_LINES lines, nested functions counted in the one that holds them (a factory is a
 * small builder, not one long closure), and no file over MAX_FILE_LINES lines; core keeps no state
 * at module level (what it keeps per bridge is in its context's CoreMemory).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 400;

/**
 * Module-level collections in src/core that are constant tables (filled once where they are
 * declared, only ever read) or a pure memo (the same time zone always gives the same formatter):
 * no state of a bridge. Anything else core keeps belongs in the context's memory (core/memory.ts).
 */
const CORE_CONSTANT_TABLES: ReadonlySet<string> = new Set([
  'src/core/guards.ts HELP_WORDS',
  'src/core/settings/form.ts LONG_TEXT',
  'src/core/handoff/lead.ts NOT_CITIES',
  'src/core/handoff/lead.ts NAME_ABBREVIATIONS',
  'src/core/listings/fields.ts BY_LOWER',
  'src/core/commands/grammar.ts OPEN_QUOTES',
  'src/core/handoff/hours/zoned-time.ts formatters',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A function's name as a reader would look for it: its own, or the variable, property or class member it is. */
function nameOf(node: ts.Node): string {
  const own = (node as { name?: ts.Node }).name;
  if (own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own))) return own.text;
  if (ts.isConstructorDeclaration(node)) return `${nameOf(node.parent)}.constructor`;
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    return nameOf(parent);
  return '(anonymous)';
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

interface Measured {
  /** `src/path.ts name` */
  id: string;
  line: number;
  lines: number;
}

function functionsOf(path: string): Measured[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const rel = relative(ROOT, path).split('\\').join('/');
  const out: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ id: `${rel} ${nameOf(node)}`, line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Module-level `let`/`var` and `new Map/Set/WeakMap/WeakSet` of a file, as `src/path.ts name`. */
function moduleState(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const rel = relative(ROOT, path).split('\\').join('/');
  const collection = /^new (Map|Set|WeakMap|WeakSet)\b/;
  return file.statements.filter(ts.isVariableStatement).flatMap((statement) => {
    const mutable = !(statement.declarationList.flags & ts.NodeFlags.Const);
    return statement.declarationList.declarations
      .filter((d) => mutable || (d.initializer !== undefined && collection.test(d.initializer.getText(file))))
      .map((d) => `${rel} ${d.name.getText(file)}`);
  });
}

const files = sourceFiles(SRC);
const functions = files.flatMap(functionsOf);

describe('the house rules of src/', () => {
  test('finds the source', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(functions.length).toBeGreaterThan(1000);
  });

  test(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = functions
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  test('core keeps no state at module level: no let, and no collection but the constant tables listed', () => {
    const state = files.filter((path) => relative(SRC, path).startsWith('core')).flatMap(moduleState);
    expect(state.length).toBeGreaterThan(0);
    expect(state.filter((id) => !CORE_CONSTANT_TABLES.has(id))).toEqual([]);
  });

  test("core reads no environment and no clock but the context's", () => {
    const core = files.filter((path) => relative(SRC, path).startsWith('core'));
    const uses = core.flatMap((path) => {
      const text = readFileSync(path, 'utf8');
      const rel = relative(ROOT, path).split('\\').join('/');
      return [/process\.env/, /Date\.now\b/, /new Date\(\)/]
        .filter((re) => re.test(text))
        .map((re) => `${rel} ${re.source}`);
    });
    expect(uses).toEqual([]);
  });

  test(`no file is over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((path) => ({ path: relative(ROOT, path), lines: readFileSync(path, 'utf8').trimEnd().split('\n').length }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
