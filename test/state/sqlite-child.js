/*
 * A separate OS process hammering one SQLite file, to prove the store is safe across processes (one
 * process alone cannot interleave better-sqlite3's synchronous transactions). Loads the TypeScript
 * source through typescript's transpiler so the test exercises src/, not a build.
 * argv: dbPath, parties, label, rounds. Prints one JSON line of results.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: filename,
  });
  module._compile(out.outputText, filename);
};

const { SqliteStore } = require(path.join(__dirname, '../../src/state/sqlite-store.ts'));

async function main() {
  const [dbPath, partiesText, label, roundsText] = process.argv.slice(2);
  const rounds = Number(roundsText);
  const store = new SqliteStore(dbPath);
  // A barrier, so the processes overlap instead of running one after another however long each
  // took to start: each says it is ready, then waits until every party is.
  await store.set(`mp:ready:${label}`, true);
  while ((await store.keys('mp:ready:')).length < Number(partiesText)) await new Promise((r) => setTimeout(r, 5));
  const wonKeys = [];
  const wonClaims = [];
  const pushed = [];
  let tokens = 0;
  for (let i = 0; i < rounds; i++) {
    if (await store.setIfAbsent(`mp:key:${i}`, label)) wonKeys.push(i);
    if (await store.compareAndSet(`mp:claim:${i}`, { open: true }, { by: label })) wonClaims.push(i);
    pushed.push((await store.push('mp:queue', { label, i })).id);
    if ((await store.takeToken('mp:rate', 10, 60_000)).granted) tokens++;
  }
  await store.close();
  process.stdout.write(JSON.stringify({ label, wonKeys, wonClaims, pushed, tokens }) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
