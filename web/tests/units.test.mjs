// The page's pure parts, bundled from the TypeScript sources with esbuild and run in node: the
// server-sent-event parser and the gapless trace follower (W6), the menu and Enter's move (W1,
// W3), the moves a preview replays (W9), the graph's current node (W10).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

let units;
let folder;

before(async () => {
  // Inside web/ (test-results is git-ignored), so the bundle finds web/node_modules.
  const results = new URL('../test-results', import.meta.url).pathname;
  mkdirSync(results, { recursive: true });
  folder = mkdtempSync(join(results, 'units-'));
  const outfile = join(folder, 'units.mjs');
  await build({
    stdin: {
      contents: `
        export { parseSse, followTrace } from './src/sse';
        export { menuOf, primaryMove, retriable } from './src/player';
        export { ApiError } from './src/api';
        export { movesOf } from './src/preview';
        export { currentNode, highlight } from './src/graph';
        export { route } from './src/store';
      `,
      resolveDir: new URL('..', import.meta.url).pathname,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile,
    logLevel: 'error',
    external: ['@viz-js/viz'],
  });
  units = await import(pathToFileURL(outfile).href);
});

after(() => rmSync(folder, { recursive: true, force: true }));

test('server-sent events are split into events, the unfinished rest kept', () => {
  const { events, rest } = units.parseSse('id: 1\nevent: trace\ndata: {"a":1}\n\n: keep-alive\n\nid: 2\r\nevent: trace\r\ndata: x\r\n\r\nid: 3\ndata: par');
  assert.deepEqual(events, [
    { id: '1', event: 'trace', data: '{"a":1}' },
    { id: '2', event: 'trace', data: 'x' },
  ]);
  assert.equal(rest, 'id: 3\ndata: par');
});

/** A fetch whose every call answers the next of `streams` (each a list of SSE chunks), and records the URLs asked. */
function fakeFetch(streams) {
  const asked = [];
  const fetch = async (url) => {
    asked.push(String(url));
    const chunks = streams.shift() ?? [];
    const encoder = new TextEncoder();
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return { fetch, asked };
}

const record = (sequence) => `id: ${sequence}\nevent: trace\ndata: ${JSON.stringify({ sequence, type: 'apply.started', payload: {} })}\n\n`;

test('the trace follower delivers every record once, in order, across a gap and a dropped connection', async () => {
  // First connection: 1, 2, then 4 (3 went missing): the follower must not deliver 4 and must
  // reconnect after 2. Second: 2 again (a repeat), 3, 4, split mid-event; then the stream ends
  // (a dropped connection), and the third connection starts after 4 and brings 5.
  const { fetch, asked } = fakeFetch([
    [record(1), record(2), record(4)],
    [record(2), record(3), record(4).slice(0, 10), record(4).slice(10)],
    [record(5)],
  ]);
  const saved = globalThis.fetch;
  globalThis.fetch = fetch;
  try {
    const delivered = [];
    const follower = units.followTrace('s1', 'token', 0, { record: (r) => delivered.push(r.sequence), state: () => {} });
    for (let i = 0; i < 200 && delivered.length < 5; i++) await new Promise((r) => setTimeout(r, 25));
    follower.stop();
    assert.deepEqual(delivered, [1, 2, 3, 4, 5]);
    assert.deepEqual(asked.slice(0, 3).map((u) => new URL(u, 'http://x').searchParams.get('after')), ['0', '2', '4']);
    assert.equal(follower.last(), 5);
  } finally {
    globalThis.fetch = saved;
  }
});

const view = (actions, unavailable) => ({ status: 'active', atRest: true, stateId: 'awaiting-choice:7', description: '', pendingQuestions: [], actions, unavailable });

test('the menu merges available and unavailable options by position', () => {
  const menu = units.menuOf(
    view(
      [{ id: 'choose:0', label: 'Art' }, { id: 'choose:3', label: 'Look' }, { id: 'undo', label: 'Undo' }],
      [{ position: 1, label: 'Ticket', why: 'its condition does not hold' }],
    ),
  );
  assert.deepEqual(
    menu.map((e) => [e.position, e.actionId, e.label, e.why ?? null]),
    [
      [0, 'choose:0', 'Art', null],
      [1, 'choose:1', 'Ticket', 'its condition does not hold'],
      [3, 'choose:3', 'Look', null],
    ],
  );
});

test('Enter takes the move the run waits for: next, else done, else retry, never undo', () => {
  assert.equal(units.primaryMove(view([{ id: 'undo', label: 'Undo' }, { id: 'next', label: 'Next' }])).id, 'next');
  assert.equal(units.primaryMove(view([{ id: 'done', label: 'Done: X' }, { id: 'failed', label: 'Failed: X' }])).id, 'done');
  assert.equal(units.primaryMove(view([{ id: 'retry', label: 'Retry' }, { id: 'undo', label: 'Undo' }])).id, 'retry');
  assert.equal(units.primaryMove(view([{ id: 'undo', label: 'Undo' }, { id: 'choose:0', label: 'A' }])), undefined);
});

test('the moves a preview replays are the executed applies and answers, in order', () => {
  const r = (sequence, type, callId, payload) => ({ schemaVersion: 1, sessionId: 's', sequence, timestamp: 0, type, callId, payload });
  const moves = units.movesOf([
    r(1, 'session.started', undefined, {}),
    r(2, 'apply.started', 'apply-1', { actionId: 'done', key: 'a' }),
    r(3, 'apply.finished', 'apply-1', { actionId: 'done', key: 'a', disposition: 'executed' }),
    r(4, 'input.received', 'input-1', { questionId: 'You.HasTicket', text: 'no', key: 'b' }),
    r(5, 'input.settled', 'input-1', { questionId: 'You.HasTicket', key: 'b', disposition: 'executed' }),
    r(6, 'apply.started', 'apply-2', { actionId: 'choose:2', key: 'c' }),
    r(7, 'apply.finished', 'apply-2', { actionId: 'choose:2', key: 'c', disposition: 'rejected' }),
    r(8, 'apply.finished', 'apply-3', { actionId: 'choose:0', key: 'd', disposition: 'executed' }),
    // An agent runtime's own apply pair, inside the session's (H48): not a move of the session's.
    { ...r(9, 'apply.finished', undefined, { schemaVersion: 2, type: 'apply.finished', payload: {} }), engine: true },
  ]);
  assert.deepEqual(moves, [{ actionId: 'done' }, { questionId: 'You.HasTicket', text: 'no' }, { actionId: 'choose:0' }]);
});

test("the graph marks the node the view's state id stands at", () => {
  assert.equal(units.currentNode('awaiting-choice:12#0'), 12);
  assert.equal(units.currentNode('at-end'), null);
  const dot = 'digraph "x" {\n  n12 [shape=box];\n}\n';
  const marked = units.highlight(dot, 'n12');
  assert.match(marked, /n12 \[style="filled,bold"[^\n]*\n}\n$/);
  assert.equal(units.highlight(dot, null), dot);
  assert.equal(units.highlight(dot, 'n12; evil'), dot, 'only a plain DOT id is marked');
});

test('the fragment names the page, and a shared token', () => {
  assert.deepEqual(units.route('#/play/abc'), { page: 'play', sessionId: 'abc', token: undefined });
  assert.deepEqual(units.route('#/play/abc?t=secret'), { page: 'play', sessionId: 'abc', token: 'secret' });
  assert.deepEqual(units.route('#/preview/sub/a.dialogue.md'), { page: 'preview', path: 'sub/a.dialogue.md' });
  assert.deepEqual(units.route('#/'), { page: 'home' });
  assert.deepEqual(units.route(''), { page: 'home' });
});

test('styled speech is drawn in a real browser: bold, italic, strikethrough, links, images by alt text', async () => {
  const { launch } = await import('./harness.mjs');
  const bundle = await build({
    stdin: { contents: `export { renderSpeech, safeHref } from './src/speech';`, resolveDir: new URL('..', import.meta.url).pathname, loader: 'ts' },
    bundle: true,
    format: 'iife',
    globalName: 'speech',
    write: false,
    logLevel: 'error',
  });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html lang="en"><body><p id="out"></p></body></html>');
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    const html = await page.evaluate(() => {
      const t = (text) => ({ kind: 'text', text });
      const line = {
        type: 'said',
        speaker: 'Mira',
        text: 'plain',
        speech: [
          t('A '),
          { kind: 'styled', style: 'bold', children: [t('very '), { kind: 'styled', style: 'italic', children: [t('fine')] }] },
          t(' '),
          { kind: 'styled', style: 'strikethrough', children: [t('rule')] },
          t(' '),
          { kind: 'link', target: 'https://example.org/map', label: [t('map')] },
          { kind: 'link', target: 'javascript:alert(1)', label: [t('trap')] },
          { kind: 'image', source: 'cat.png', alt: [t('a cat')] },
          { kind: 'break' },
          { kind: 'custom-command', name: 'JoinClub', args: ['You', 'Art'] },
          { kind: 'tag', name: 'mood' },
        ],
      };
      document.getElementById('out').append(globalThis.speech.renderSpeech(line));
      return document.getElementById('out').innerHTML;
    });
    assert.equal(
      html,
      '<span class="speech">A <strong>very <em>fine</em></strong> <s>rule</s> ' +
        '<a href="https://example.org/map" target="_blank" rel="noopener noreferrer">map</a>' +
        '<span class="link">trap</span>' +
        '<span class="image" role="img" aria-label="a cat">[a cat]</span><br>' +
        '<span class="command-inline">JoinClub("You", "Art")</span></span>',
    );
    const plain = await page.evaluate(() => globalThis.speech.renderSpeech({ type: 'said', text: '*not* markup <b>' }).outerHTML);
    assert.equal(plain, '<span class="speech">*not* markup &lt;b&gt;</span>');
  } finally {
    await browser.close();
  }
});

test('a request is sent again under its key only when nothing was executed', () => {
  const error = (status, kind) => new units.ApiError(status, { type: kind ? `urn:stagehand:problem:${kind}` : undefined });
  assert.equal(units.retriable(error(0)), true, 'never reached the server');
  assert.equal(units.retriable(error(409, 'conflict')), true, 'the session kept moving');
  assert.equal(units.retriable(error(429, 'too-many-requests')), true);
  assert.equal(units.retriable(error(409, 'action-rejected')), false, 'a refusal is shown, not retried');
  assert.equal(units.retriable(error(422, 'idempotency-key-reused')), false);
  assert.equal(units.retriable(new Error('x')), false);
});
