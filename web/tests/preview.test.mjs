// The writer's preview over `stagehand serve --watch DIR` (issue 15 item 3): an edit that breaks
// the script shows its diagnostic over the source; an edit that mends it replays the moves.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, repo, startServer, step, withPage } from './harness.mjs';

let server;
let browser;
let watching = true;

before(async () => {
  try {
    server = await startServer({ examples: ['club-fair.dialogue.md'], watch: true });
  } catch (error) {
    if (!/--watch|unexpected argument/.test(String(error))) throw error;
    watching = false;
    return;
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('an edited watched script reloads: a diagnostic with its span, then the moves replayed', async (t) => {
  if (!watching) {
    // Not a pass: the server has no --watch yet (docs/design/web.md, "What the server must add").
    t.skip('NOTICE: stagehand serve has no --watch yet; the preview test is skipped');
    return;
  }
  await withPage(browser, server, 'preview-diagnostic', async (page) => {
    const file = join(server.documents, 'club-fair.dialogue.md');
    const source = readFileSync(file, 'utf8');
    await page.goto(`${server.url}/#/preview`);
    await page.getByRole('link', { name: /club-fair/ }).waitFor();
    await page.locator('.preview-player .controls button, .preview-player .controls input').first().waitFor();
    await step(page);
    await step(page);
    const broken = source.replace('(#the-party)\n\n# The Secret', '(#the-parti)\n\n# The Secret');
    assert.notEqual(broken, source);
    writeFileSync(file, broken);
    const diagnostic = page.locator('.diagnostics-view .diagnostic').first();
    await diagnostic.waitFor();
    assert.match(await diagnostic.innerText(), /DLG2009/);
    assert.match(await page.locator('.source mark.span').first().innerText(), /the-parti|Back to the party|=>/);
    if (process.env.STAGEHAND_DOC_SCREENSHOTS) await page.screenshot({ path: `${repo}/docs/screenshots/diagnostic.png` });
    writeFileSync(file, source.replace('Every table wants', 'Every single table wants'));
    await page.locator('.notice').getByText(/replayed|differs/).waitFor();
    assert.equal(await page.locator('.diagnostics-view').count(), 0);
  });
});
