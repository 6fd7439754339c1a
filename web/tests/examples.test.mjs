// Issue 15's "done when": `stagehand serve --watch examples` (the repo's folder itself, only
// read), then the page plays every example the folder holds to its end by clicking, and the watch
// lists each with no error.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, playToEnd, repo, startServer, withPage } from './harness.mjs';

const folder = join(repo, 'examples');
const files = readdirSync(folder).filter((name) => statSync(join(folder, name)).isFile());
let server;
let browser;

before(async () => {
  server = await startServer({ watchFolder: folder });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** How a person who wants to reach the end plays each: answers, and which option to click. */
const players = {
  'club-fair.dialogue.md': { answers: { 'You.InClub': 'yes' }, pick: 'first' },
  // The lighthouse's first option asks about the lamp again and again: its player takes the last.
  'the-lighthouse.xml': { answers: {}, pick: 'last' },
};

test('every document of the examples folder is listed by the watch, with no error', async () => {
  const listed = await (await fetch(`${server.url}/v1/watch`)).json();
  const paths = listed.documents.map((d) => d.path);
  assert.deepEqual(paths, files.filter((f) => !f.endsWith('.lua')).sort());
  for (const document of listed.documents) {
    assert.ok(document.documentId, `${document.path} opens`);
    assert.deepEqual(document.diagnostics.filter((d) => d.severity === 'error'), [], document.path);
  }
});

test('the page plays every example of the watched folder to its end', async () => {
  const listed = (await (await fetch(`${server.url}/v1/watch`)).json()).documents;
  assert.ok(listed.length >= 4, JSON.stringify(listed));
  for (const document of listed) {
    await withPage(browser, server, `example-${document.path}`, async (page) => {
      await page.goto(`${server.url}/`);
      await page.getByRole('button', { name: `Play ${document.name}`, exact: true }).click();
      await page.waitForURL(/#\/play\//);
      const { answers, pick } = players[document.path] ?? { answers: {}, pick: 'first' };
      const steps = await playToEnd(page, answers, 120, pick);
      assert.ok(steps > 1, `${document.path} took ${steps} steps`);
      await page.getByRole('heading', { name: 'The end' }).waitFor();
      assert.ok((await page.locator('.transcript li.said').count()) > 1, `${document.path} said something`);
    });
  }
});
