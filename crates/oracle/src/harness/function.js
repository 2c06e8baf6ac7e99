// verdict's Task Oracle harness for js function deliverables (node >= 18).
//
// Usage: node function.js CASES RESULTS MODULE FUNCTION START END TIMEOUT_MS
//
// CASES is a JSON array of positional-argument lists. For each case k, START <= k < END, the harness
// calls FUNCTION(...args) and appends one JSON line to RESULTS, a file it opens before loading
// the deliverable, so nothing the deliverable prints can corrupt the results. Records are those
// of function.py. Synchronous code is interrupted by vm's `timeout` (V8 TerminateExecution);
// a returned promise is awaited for the same time. Integers beyond 2^53 arrive as BigInt and a
// returned BigInt is written as an exact JSON integer. The module is CommonJS or a plain script
// (a top-level `function NAME` needs no export), or an ES module exporting NAME.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const Module = require('module');

const [casesPath, resultsPath, modulePath, fnName, startText, endText, timeoutText, stopText] = process.argv.slice(2);
// "stop": no case runs after one that timed out (the judge stops at the first failure).
const stopAtTimeout = stopText === 'stop';
const start = Number(startText);
const end = Number(endText);
const timeout = Math.max(1, Number(timeoutText));
const out = fs.openSync(resultsPath, 'a');
const BIG = '\u0000bigint' + Math.random().toString(36).slice(2) + ':';
const BIG_OUT = new RegExp('"' + JSON.stringify(BIG).slice(1, -1).replace(/\\/g, '\\\\') + '(-?\\d+)"', 'g');

function stringify(value) {
  const text = JSON.stringify(value, (key, x) => {
    if (typeof x === 'bigint') return BIG + x.toString();
    if (typeof x === 'number' && !Number.isFinite(x)) throw new TypeError('return value is not JSON: ' + x);
    if (typeof x === 'function' || typeof x === 'symbol') throw new TypeError('return value is not JSON: a ' + typeof x);
    if (x instanceof Map || x instanceof Set) throw new TypeError('return value is not JSON: a ' + x.constructor.name);
    return x;
  });
  return text === undefined ? 'null' : text.replace(BIG_OUT, '$1');
}

function emit(record) {
  fs.writeSync(out, stringify(record) + '\n');
}

// JSON.parse keeping integer literals beyond 2^53 exact, as BigInt.
function parseExact(text) {
  let rewritten = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) { // "
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i++;
    } else if (c === 45 || (c >= 48 && c <= 57)) { // - or digit
      let j = i + 1;
      while (j < n && /[0-9eE.+-]/.test(text[j])) j++;
      const token = text.slice(i, j);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        rewritten += text.slice(last, i) + JSON.stringify(BIG + token);
        last = j;
      }
      i = j;
    } else {
      i++;
    }
  }
  rewritten += text.slice(last);
  return JSON.parse(rewritten, (key, v) =>
    typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v);
}

// The number of declared parameters, or null with a rest parameter, `arguments`, or an unreadable list.
function maxParams(fn) {
  let s;
  try { s = Function.prototype.toString.call(fn); } catch (e) { return null; }
  if (/\[native code\]\s*\}\s*$/.test(s)) return null;
  if (/\barguments\b/.test(s)) return null;
  if (/^\s*(async\s+)?[A-Za-z_$][\w$]*\s*=>/.test(s)) return 1;
  const open = s.indexOf('(');
  if (open < 0) return null;
  let depth = 0;
  let count = 0;
  let token = false;
  for (let i = open + 1; i < s.length; i++) {
    const c = s[i];
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < s.length && s[i] !== c) i += s[i] === '\\' ? 2 : 1;
      token = true;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return count + (token ? 1 : 0);
      depth--;
    } else if (depth === 0 && c === ',') {
      if (token) count++;
      token = false;
      continue;
    } else if (depth === 0 && s.startsWith('...', i)) return null;
    if (!/\s/.test(c)) token = true;
  }
  return null;
}

function describe(e) {
  if (!(e instanceof Error)) {
    let shown;
    try { shown = stringify(e); } catch (_) { shown = String(e); }
    return 'thrown value: ' + shown;
  }
  let text = e.message ? e.name + ': ' + e.message : e.name;
  const base = path.basename(modulePath);
  const frame = String(e.stack || '').split('\n').find((line) => /^\s*at /.test(line) && line.includes(base));
  const where = frame && /([^/\\(\s]+:\d+):\d+\)?\s*$/.exec(frame);
  if (where) text += ' (at ' + where[1] + ')';
  return text;
}

// The hard stop: a worker thread kills the process when a case (or the module's loading) runs
// past `window` ms, e.g. blocked in native code that vm's timeout cannot interrupt. It marks
// RESULTS.timeout first so that the supervisor records a timeout.
const window = timeout + Math.max(1000, timeout / 2);
const deadline = new BigInt64Array(new SharedArrayBuffer(16));
const WATCHDOG = `
const { workerData } = require('worker_threads');
const fs = require('fs');
const deadline = new BigInt64Array(workerData.shared);
for (;;) {
  Atomics.wait(deadline, 1, 0n, 50);
  const until = Atomics.load(deadline, 0);
  if (until > 0n && BigInt(Date.now()) > until) {
    try { fs.writeFileSync(workerData.marker, 'timeout\\n'); } catch (e) { /* still stop */ }
    process.kill(process.pid, 'SIGKILL');
  }
}`;

function startWatchdog() {
  const { Worker } = require('worker_threads');
  const worker = new Worker(WATCHDOG, { eval: true, workerData: { shared: deadline.buffer, marker: resultsPath + '.timeout' } });
  worker.unref();
}

function arm() {
  Atomics.store(deadline, 0, BigInt(Date.now() + window));
}

function disarm() {
  Atomics.store(deadline, 0, 0n);
}

const call = new vm.Script('globalThis.__verdict_call()', { filename: 'verdict-harness' });

function timed(thunk) {
  globalThis.__verdict_call = thunk;
  try {
    return call.runInThisContext({ timeout, breakOnSigint: false });
  } finally {
    globalThis.__verdict_call = undefined;
  }
}

function isTimeout(e) {
  return e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

async function settle(value, t0) {
  if (!value || typeof value.then !== 'function') return value;
  const left = Math.max(1, timeout - (performance.now() - t0));
  let timer;
  const expiry = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ERR_SCRIPT_EXECUTION_TIMEOUT' })), left);
  });
  try {
    return await Promise.race([value, expiry]);
  } finally {
    clearTimeout(timer);
  }
}

function loadCommonJs(file) {
  const source = fs.readFileSync(file, 'utf8').replace(/^#!.*/, '');
  const wrapper = vm.compileFunction(
    source + '\n;return (typeof ' + fnName + " === 'function') ? " + fnName + ' : undefined;',
    ['exports', 'require', 'module', '__filename', '__dirname'],
    { filename: file },
  );
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  const local = timed(() => wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file)));
  mod.loaded = true;
  if (typeof local === 'function') return local;
  const exported = mod.exports && mod.exports[fnName];
  if (typeof exported === 'function') return exported;
  if (typeof mod.exports === 'function' && mod.exports.name === fnName) return mod.exports;
  return undefined;
}

// An ES module (`export function NAME`): imported from a `.mjs` copy beside it, so that its own
// relative imports resolve; its top-level code is not under the per-case timeout.
async function loadEsModule(file) {
  let target = file;
  if (!file.endsWith('.mjs')) {
    target = path.join(path.dirname(file), '.' + path.basename(file, path.extname(file)) + '.verdict.mjs');
    fs.copyFileSync(file, target);
  }
  const ns = await import(require('url').pathToFileURL(target).href);
  if (typeof ns[fnName] === 'function') return ns[fnName];
  if (typeof ns.default === 'function' && ns.default.name === fnName) return ns.default;
  return undefined;
}

async function load() {
  const file = path.resolve(modulePath);
  if (file.endsWith('.mjs')) return loadEsModule(file);
  try {
    return loadCommonJs(file);
  } catch (e) {
    const esm = e instanceof SyntaxError && /\b(import|export)\b|top-level await|outside a module/.test(e.message);
    if (!esm) throw e;
    return loadEsModule(file);
  }
}

async function main() {
  const cases = parseExact(fs.readFileSync(casesPath, 'utf8'));
  startWatchdog();
  let fn;
  try {
    arm();
    fn = await load();
    disarm();
  } catch (e) {
    emit({ load_error: isTimeout(e) ? 'loading the module ran out of time' : 'loading the module raised ' + describe(e) });
    return;
  }
  if (typeof fn !== 'function') {
    emit({ load_error: path.basename(modulePath) + ' defines no function ' + fnName });
    return;
  }
  const required = fn.length;
  const most = maxParams(fn);
  emit({ loaded: { required, max: most === null ? null : Math.max(most, required) } });
  for (let k = start; k < Math.min(end, cases.length); k++) {
    const args = cases[k];
    if (args.length < required || (most !== null && args.length > Math.max(most, required))) {
      emit({ i: k, arity: args.length });
      continue;
    }
    const t0 = performance.now();
    let record;
    arm();
    try {
      const got = await settle(timed(() => fn(...args)), t0);
      disarm();
      record = { i: k, ok: got === undefined ? null : got, ms: performance.now() - t0 };
      try {
        fs.writeSync(out, stringify(record) + '\n');
        continue;
      } catch (e) {
        record = { i: k, error: e instanceof TypeError && /not JSON|circular|BigInt/.test(e.message) ? e.message : 'return value is not JSON: ' + describe(e), ms: record.ms };
      }
    } catch (e) {
      disarm();
      const ms = performance.now() - t0;
      record = isTimeout(e) ? { i: k, timeout: true, ms } : { i: k, error: describe(e), ms };
    }
    emit(record);
    if (stopAtTimeout && record.timeout) break;
  }
  emit({ done: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    try { emit({ load_error: 'harness failure: ' + describe(e) }); } catch (_) { /* nothing left to report with */ }
    process.exit(70);
  },
);
