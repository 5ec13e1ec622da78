/**
 * docs/architecture.md stays true to the tree: every path it names exists, the counts it gives for
 * one `/ask` are those of its own hop table, and every row of that table is a call the code makes.
 *
 * The rule for a row `| n | \`from\` → \`to\` | text |`, read with the TypeScript compiler:
 * - the hop's names: the backticked identifiers of the text (`core.command(…)` names `command`,
 *   `SurfacePort.startThread` names `startThread`; paths are not names); a row that names none is
 *   about an import, and its names are the bindings `from` imports from `to` (called, called a
 *   method of, or handed to a call);
 * - every name the text gives is in the code of `from` or `to` (so a name left behind by a rename fails);
 * - `from` calls one of the names, and the compiler resolves that call to a declaration in `to`
 *   (directly or through a type: `ctx.client.getSession` is `src/service/client.ts`'s), or to an
 *   interface member, parameter or property that `to` fills: `to` declares a name the row gives and
 *   imports the file of that member (a port it implements: `SurfacePort.startThread`), or imports
 *   `from` (it handed the function over: the worker's `handle`), or is reached through `from`'s
 *   imports (the wiring built it: the app's `requestListener`); or, for a hop through a package the
 *   row names (`@slack/bolt`), `to` calls a name of the row that the package declares (registers a
 *   listener there) and `from` calls another;
 * - the rows are one path in the order written: each row starts where an earlier row ended (or at
 *   the first row's start).
 * A port's member resolves to the interface, not to one surface: that `to` is Slack's port is the
 * table's choice (any implementing surface passes).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

/** Backticked words that are paths in the repository (a route like `/slack/events` is not). */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const word = m[1] ?? '';
    if (!word.includes('/') || word.startsWith('/') || /^[a-z]+:/.test(word)) continue;
    if (!/^(src|test|docs|bench|fakes)\//.test(word)) continue;
    out.add(word);
  }
  return [...out];
}

interface Row {
  n: number;
  from: string;
  to: string;
  text: string;
}

function hopRows(): Row[] {
  const section = doc.slice(doc.indexOf('## The life of one `/ask`'), doc.indexOf('**Counted:'));
  return [...section.matchAll(/^\| (\d+) \| `([^`]+)` → `([^`]+)` \| (.*) \|$/gm)].map((m) => ({
    n: Number(m[1]),
    from: m[2] ?? '',
    to: m[3] ?? '',
    text: m[4] ?? '',
  }));
}

/** Words of the language, not names (`for` is a field of the request). */
const RESERVED: ReadonlySet<string> = new Set(['for', 'new', 'return', 'await']);

/** The names a row's text gives its hop: the last part of each backticked (dotted) identifier. */
function namesOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    const span = m[1] ?? '';
    if (span.endsWith('.ts') || span.includes('/')) continue;
    const word = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/.exec(span)?.[0] ?? '';
    const name = word.split('.').pop() ?? '';
    if (name && !RESERVED.has(name)) out.add(name);
  }
  return [...out];
}

/** Every backticked name of a row's text, whole (`SurfacePort.startThread`, `chat.postMessage`). */
function dottedNamesOf(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].flatMap((m) => {
    const span = m[1] ?? '';
    if (span.endsWith('.ts') || span.includes('/')) return [];
    const word = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/.exec(span)?.[0];
    return word && !RESERVED.has(word) ? [word] : [];
  });
}

/** The files a file imports (relative imports, types included), by path from the repository root. */
function importsOf(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true);
  return file.statements.flatMap((s) => {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) return [];
    const target = resolveImport(path, s.moduleSpecifier.text);
    return target ? [target] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = join(dirname(from), spec);
  const found = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(join(ROOT, p)));
  return found?.split('\\').join('/');
}

/** Every file `from` reaches through its imports, itself included. */
function reachable(from: string): Set<string> {
  const seen = new Set<string>();
  const walk = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const next of importsOf(path)) walk(next);
  };
  walk(from);
  return seen;
}

/** One call in a file: the name called (or, `used`, a name handed to a call) and where the compiler declares it. */
interface Call {
  name: string;
  /** 'call': `name(…)`, `x.name(…)`, `new name(…)`; 'used': `name.f(…)` or `f(name)`. */
  use: 'call' | 'used';
  /** Each declaration of the name: its file (or package) and its kind (a function, a member, a parameter, …). */
  targets: { path: string; kind: ts.SyntaxKind }[];
}

function repoPath(fileName: string): string {
  const rel = relative(ROOT, fileName).split('\\').join('/');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
  return pkg ? (pkg[1] ?? rel) : rel;
}

function calleeName(callee: ts.Expression): ts.Identifier | ts.PrivateIdentifier | undefined {
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  return undefined;
}

function callsIn(program: ts.Program, path: string): Call[] {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(join(ROOT, path));
  if (!file) throw new Error(`${path}: not in the program`);
  const out: Call[] = [];
  const record = (name: ts.Identifier | ts.PrivateIdentifier, use: Call['use']): void => {
    let symbol = checker.getSymbolAtLocation(name);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const targets = (symbol?.declarations ?? []).map((d) => ({
      path: repoPath(d.getSourceFile().fileName),
      kind: d.kind,
    }));
    out.push({ name: name.text, use, targets });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calleeName(node.expression);
      if (name) record(name, 'call');
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression))
        record(callee.expression, 'used');
      for (const arg of node.arguments ?? []) if (ts.isIdentifier(arg)) record(arg, 'used');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Names a file declares: functions, classes, variables, class members and object properties. */
function declaredIn(program: ts.Program, path: string): Set<string> {
  const out = new Set<string>();
  const visit = (node: ts.Node): void => {
    const declaration =
      ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isShorthandPropertyAssignment(node) ||
      ts.isGetAccessorDeclaration(node);
    const name = declaration ? node.name : undefined;
    if (name && ts.isIdentifier(name)) out.add(name.text);
    ts.forEachChild(node, visit);
  };
  const file = program.getSourceFile(join(ROOT, path));
  if (file) visit(file);
  return out;
}

/** The packages a row says it goes through (a backticked `@scope/name`). */
function packagesOf(text: string): string[] {
  return [...text.matchAll(/`(@[\w-]+\/[\w-]+)`/g)].map((m) => m[1] ?? '');
}

/**
 * Why a row is not a call the code makes, or undefined when it is. `from` must call one of the row's
 * names (or, for a row that names none, call, call a method of or hand to a call a name it imports
 * from `to`), and the compiler must resolve
 * that call to `to`; or to an interface member, parameter or property (a port or a function handed
 * over) that `to` fills: `to` declares a name the row gives and imports the file that declares the
 * member, or imports `from` (it handed the function over), or is reached through `from`'s imports
 * (the wiring built it); or, for a hop through a package the row names, `to` calls a name of the row
 * that the package declares (a listener it registers there).
 */
function whyUntrue(program: ts.Program, row: Row): string | undefined {
  const named = namesOf(row.text);
  const names = named.length > 0 ? named : importedFrom(row.from, row.to);
  if (names.length === 0) return 'names no call and imports nothing from `to`';
  const calls = callsIn(program, row.from).filter(
    (c) => names.includes(c.name) && (c.use === 'call' || named.length === 0),
  );
  if (calls.length === 0) return `\`from\` calls none of ${names.join(', ')}`;
  if (calls.some((c) => c.targets.some((t) => t.path === row.to))) return undefined;
  const declared = declaredIn(program, row.to);
  const filled = names.filter((n) => declared.has(n));
  const toImports = importsOf(row.to);
  const wired = reachable(row.from).has(row.to);
  const handed = calls.some((c) =>
    c.targets.some(
      (t) => HANDED_KINDS.has(t.kind) && (toImports.includes(t.path) || toImports.includes(row.from) || wired),
    ),
  );
  if (filled.length > 0 && handed) return undefined;
  const through = packagesOf(row.text);
  const registered = callsIn(program, row.to).some(
    (c) => c.use === 'call' && names.includes(c.name) && c.targets.some((t) => through.includes(t.path)),
  );
  if (through.length > 0 && registered) return undefined;
  return `the calls of ${calls.map((c) => c.name).join(', ')} in \`from\` do not reach \`to\``;
}

/** Declarations a call resolves to when the function called is handed over: a port's member, a parameter, a property. */
const HANDED_KINDS: ReadonlySet<ts.SyntaxKind> = new Set([
  ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.PropertyDeclaration,
]);

/** The names `from` imports from `to`. */
function importedFrom(from: string, to: string): string[] {
  const file = ts.createSourceFile(from, readFileSync(join(ROOT, from), 'utf8'), ts.ScriptTarget.Latest, true);
  return file.statements.flatMap((s) => {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) return [];
    if (resolveImport(from, s.moduleSpecifier.text) !== to) return [];
    const clause = s.importClause;
    const bound = clause?.namedBindings;
    return [
      ...(clause?.name ? [clause.name.text] : []),
      ...(bound && ts.isNamespaceImport(bound) ? [bound.name.text] : []),
      ...(bound && ts.isNamedImports(bound) ? bound.elements.map((e) => e.name.text) : []),
    ];
  });
}

function programOf(files: string[]): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json: not read');
  return ts.createProgram(
    files.map((f) => join(ROOT, f)),
    config.options,
  );
}

describe('docs/architecture.md', () => {
  const rows = hopRows();

  test('names paths, and every one of them exists', () => {
    const paths = namedPaths(doc);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  test("the life of one /ask: the counts written down are the hop table's", () => {
    expect(rows.length).toBeGreaterThan(30);
    expect(rows.map((r) => r.n)).toEqual(rows.map((_, i) => i + 1));
    const files = new Set(rows.flatMap((r) => [r.from, r.to]));
    const counted = /\*\*Counted: (\d+) hops across (\d+) files\*\*/.exec(doc);
    expect(counted).not.toBeNull();
    expect([Number(counted?.[1]), Number(counted?.[2])]).toEqual([rows.length, files.size]);
  });

  test('every hop is one path: each row starts where an earlier row ended', () => {
    const reached = new Set([rows[0]?.from]);
    const jumps = rows.filter((row) => {
      const ok = reached.has(row.from);
      reached.add(row.to);
      return !ok;
    });
    expect(jumps.map((r) => `${r.n}: ${r.from}`)).toEqual([]);
  });

  test('every name a row gives is in the code of its two files (each part of a dotted name)', () => {
    const stale = rows.flatMap((row) => {
      const code = readFileSync(join(ROOT, row.from), 'utf8') + readFileSync(join(ROOT, row.to), 'utf8');
      return dottedNamesOf(row.text)
        .filter((name) => name.split('.').some((part) => !new RegExp(`\\b${part.replace('$', '\\$')}\\b`).test(code)))
        .map((name) => `${row.n} ${name}`);
    });
    expect(stale).toEqual([]);
  });

  test('every hop is a call the code makes: `from` calls a name the compiler finds in `to`, or one `to` fills', () => {
    const program = programOf([...new Set(rows.flatMap((r) => [r.from, r.to]))]);
    const untrue = rows.flatMap((row) => {
      const why = whyUntrue(program, row);
      return why ? [`${row.n} ${row.from} → ${row.to}: ${why}`] : [];
    });
    expect(untrue).toEqual([]);
  }, 60_000);
});
