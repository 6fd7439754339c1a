// The writer's preview over the real `stagehand serve --watch DIR` (issue 15 item 3): the folder's
// documents, the graph with the current node, restarting at an anchor, an edit that breaks the
// script (its diagnostic over the source, the span marked), and an edit that mends it (the moves
// replayed, and where the story now differs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, repo, startServer, step, withPage } from './harness.mjs';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SCRIPT = 'club-fair.dialogue.md';
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** A fresh watched folder for one test (each test edits its own copy). */
async function watching(body) {
  const server = await startServer({ examples: [SCRIPT, 'the-crossing.xml', 'club-fair.world.lua'], watch: true });
  try {
    await body(server, join(server.documents, SCRIPT));
  } finally {
    await server.stop();
  }
}

/** Opens the preview of the script and waits for its player. */
async function openPreview(page, server) {
  await page.goto(`${server.url}/#/preview`);
  await page.getByRole('link', { name: SCRIPT }).waitFor();
  await page.locator('.preview-player .controls button, .preview-player .controls input').first().waitFor();
}

/** The graph's node marked as the current one (its Graphviz title), once drawn. */
async function markedNode(page) {
  await page.locator('.graph svg').waitFor();
  return page.locator('.graph svg g.node').filter({ has: page.locator('[fill="#ffd54f"]') }).locator('title').textContent();
}

/** The drawing's id of the node the preview's session stands at, as the server says (W15). */
async function standsAt(page, server) {
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('stagehand.sessions.v1') ?? '[]')[0]);
  const auth = { headers: { Authorization: `Bearer ${kept.token}` } };
  const shown = await (await fetch(`${server.url}/v1/sessions/${kept.sessionId}`, auth)).json();
  const graph = await (await fetch(`${server.url}/v1/documents/${shown.documentId}/graph`, { headers: { Accept: 'application/json' } })).json();
  const index = Number(/:(\d+)/.exec(shown.view.stateId)?.[1]);
  return graph.nodes.find((n) => n.index === index)?.id;
}

/** Waits until the graph marks exactly the node the session stands at; that node's id. */
async function marksWhereItStands(page, server) {
  const expected = await standsAt(page, server);
  assert.ok(expected, 'the session stands at a node');
  await page.waitForFunction((id) => {
    const marked = [...document.querySelectorAll('.graph svg g.node')].filter((g) => g.querySelector('[fill="#ffd54f"]'));
    return marked.length === 1 && marked[0].querySelector('title')?.textContent === id;
  }, expected);
  return expected;
}

async function seriousViolations(page) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

test('the preview lists the folder, draws the graph at the current node, and restarts at an anchor', async () => {
  await watching(async (server) => {
    await withPage(browser, server, 'preview-graph', async (page) => {
      await openPreview(page, server);
      const listed = await page.getByRole('navigation', { name: 'Watched documents' }).getByRole('link').allInnerTexts();
      assert.deepEqual(listed, [SCRIPT, 'the-crossing.xml'], 'the documents of the folder, the Lua world left out');
      assert.equal(await page.locator('.badge.error').count(), 0);
      const first = await markedNode(page);
      assert.equal(first, await marksWhereItStands(page, server));
      await step(page);
      await step(page);
      assert.notEqual(await marksWhereItStands(page, server), first, 'the mark follows the story');
      // Restart at an anchor: the player's jump, advertised by the view.
      await page.getByLabel('Jump to a scene').selectOption('jump:the-party');
      await page.getByRole('button', { name: 'Jump', exact: true }).click();
      await page.locator('.preview-player .transcript li.said').getByText('Tonight is the fair party').waitFor();
      await marksWhereItStands(page, server);
      if (process.env.STAGEHAND_DOC_SCREENSHOTS) await page.screenshot({ path: `${repo}/docs/screenshots/preview.png` });
      assert.deepEqual(await seriousViolations(page), [], 'the preview passes axe-core');
    });
  });
});

test('an edited watched script reloads: a diagnostic with its span, then the moves replayed and where they differ', async () => {
  await watching(async (server, file) => {
    const source = readFileSync(file, 'utf8');
    await withPage(browser, server, 'preview-diagnostic', async (page) => {
      await openPreview(page, server);
      await step(page);
      await step(page);
      await step(page);
      // The writer breaks a jump: the page shows the compiler's diagnostic over the source.
      const broken = source.replace('](#the-party)', '](#the-parti)');
      assert.notEqual(broken, source);
      writeFileSync(file, broken);
      const diagnostic = page.locator('.diagnostics-view .diagnostic').first();
      await diagnostic.waitFor();
      assert.match(await diagnostic.innerText(), /DLG2009/);
      assert.match(await page.locator('.source .line.marked').first().innerText(), /the-parti/);
      assert.match(await page.locator('.source mark.span').first().innerText(), /the-parti/);
      assert.match(await page.locator('.badge.error').innerText(), /1 error/);
      assert.equal(await page.locator('.preview-player').count(), 0, 'a script that does not compile shows its diagnostics alone');
      await page.getByText(/changed and does not compile/).waitFor();
      assert.deepEqual(await seriousViolations(page), [], 'the diagnostics pass axe-core');
      if (process.env.STAGEHAND_DOC_SCREENSHOTS) await page.screenshot({ path: `${repo}/docs/screenshots/diagnostic.png`, fullPage: true });
      // Mended, with a line the writer already read reworded: the moves are replayed into it.
      writeFileSync(file, source.replace('Every table wants', 'Every single table wants'));
      await page.locator('.notice').getByText(/now differs at move 1\b/).waitFor();
      assert.equal(await page.locator('.diagnostics-view').count(), 0);
      await page.locator('.preview-player .transcript li.said').getByText('Every single table wants').waitFor();
      assert.equal(await page.locator('.badge.error').count(), 0);
    });
  });
});

test('an edit past where the writer stands replays every move and reads the same', async () => {
  await watching(async (server, file) => {
    const source = readFileSync(file, 'utf8');
    await withPage(browser, server, 'preview-same', async (page) => {
      await openPreview(page, server);
      await step(page);
      await step(page);
      await page.locator('.preview-player .transcript li.said').nth(1).waitFor();
      const before = await page.locator('.preview-player .transcript li.said').allInnerTexts();
      assert.equal(before.length, 2);
      const edited = source.replace('See you next term', 'See you all next term');
      assert.notEqual(edited, source);
      writeFileSync(file, edited);
      await page.locator('.notice').getByText(/2 moves replayed; the story reads the same/).waitFor();
      await page.locator('.preview-player .transcript li.said').nth(before.length - 1).waitFor();
      assert.equal(await page.locator('.preview-player .transcript li.said').count(), before.length);
      assert.deepEqual(await page.locator('.preview-player .transcript li.said').allInnerTexts(), before, 'it stands where the writer was');
    });
  });
});
