// How `follow.js` asks the app for a rerun, driven step by step: the component's state
// machine with the server's answers and the timers in the test's hands.
// Run: node follow_asks.mjs <path of follow.js>; exits non-zero on the first failed check.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const timers = [];
globalThis.setTimeout = (f) => timers.push(f);
globalThis.clearTimeout = (id) => { if (id) timers[id - 1] = null; };
globalThis.window = { location: { href: 'http://app/' } };
globalThis.document = { documentElement: { dataset: {} } };
const waiting = [];  // the open requests: answer one with its `answer(body)`
globalThis.fetch = (_url, { signal }) => new Promise((ok, fail) => {
  waiting.push({ answer: (body) => ok({ ok: true, json: async () => body }) });
  signal.addEventListener('abort', () => fail(new Error('aborted')));
});
const settle = () => new Promise((done) => setImmediate(done));
const runTimers = async () => {
  const due = timers.splice(0);
  due.forEach((f) => f && f());
  await settle();
};

const { default: follow } = await import(pathToFileURL(process.argv[2]).href);
const asked = [];
const root = {};
const render = (data) => follow({
  data: { shoe: 's1', ...data }, parentElement: root,
  setStateValue: (name, value) => asked.push({ name, ...value }),
});

// 1. The page is drawn twice with the same data (the app may call the component again
//    without its cleanup): one news still makes one rerun request, not two.
render({ version: 1, got: null });
render({ version: 1, got: null });
await settle();
waiting.splice(0).forEach((w) => w.answer({ v: 2 }));
await settle();
assert.equal(asked.length, 1, `one news, ${asked.length} rerun requests`);

// 2. The rerun came (the server got the request) but by then the shoe had moved on to 3:
//    the request is answered, and nothing asks for it again.
render({ version: 3, got: asked[0].at });
await runTimers();
assert.equal(asked.length, 1, 'an answered request was asked again');

// 3. A request the app never got (folded into a run that was starting) is asked again.
await settle();
waiting.splice(0).forEach((w) => w.answer({ v: 4 }));
await settle();
assert.equal(asked.length, 2);
render({ version: 3, got: asked[0].at });  // a run that did not see the second request
await runTimers();
assert.equal(asked.length, 3, 'a lost request was not asked again');
assert.equal(asked[2].now, 4);
console.log('ok');
