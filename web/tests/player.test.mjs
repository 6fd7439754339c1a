// The player in a real browser against the real server (issue 15 items 1, 2, 5, 6).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import {
  currentSession,
  launch,
  playToEnd,
  repo,
  sessionState,
  startServer,
  startStory,
  step,
  traceRecords,
  withPage,
} from './harness.mjs';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server;
let browser;

before(async () => {
  server = await startServer({ examples: ['club-fair.dialogue.md', 'the-crossing.json', 'the-lighthouse.xml'] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Steps until a menu is shown (answering questions with `answers`). */
async function untilMenu(page, answers = {}) {
  for (let i = 0; i < 30; i++) {
    if (await page.locator('.controls .menu').count()) return;
    assert.ok(await step(page, answers), 'the story ended before a menu');
  }
  throw new Error('no menu within 30 steps');
}

/** The transcript's lines as the page shows them. */
const lines = (page) => page.locator('.transcript li.said').allInnerTexts();

test('club-fair plays to its end by clicking, and says so', async () => {
  await withPage(browser, server, 'club-fair-to-the-end', async (page) => {
    await startStory(page, server, 'club-fair');
    const steps = await playToEnd(page, { 'You.InClub': 'yes' });
    assert.ok(steps > 5, `only ${steps} steps`);
    await page.getByRole('heading', { name: 'The end' }).waitFor();
    const said = await lines(page);
    assert.ok(said.some((l) => l.includes('Mira') && l.includes('Welcome to the club fair')), said.join('\n'));
    // Styled speech (Reported.speech): "Every table wants *you*", "has **very** serious biscuits".
    assert.equal(await page.locator('.transcript li.said em').filter({ hasText: /^you$/ }).count(), 1);
    assert.equal(await page.locator('.transcript li.said strong').filter({ hasText: /^very$/ }).count(), 1);
    const performed = await page.locator('.transcript li.performed').allInnerTexts();
    assert.ok(performed.some((l) => l.includes('bunting flutters over the quad')), performed.join('\n'));
    assert.ok(said.some((l) => l.includes('See you next term')), said.join('\n'));
    const state = await sessionState(server, await currentSession(page));
    assert.equal(state.view.status, 'done');
  });
});

test('an unavailable option is dimmed with its reason, and refused by the server when clicked', async () => {
  await withPage(browser, server, 'unavailable-option', async (page) => {
    await startStory(page, server, 'club-fair');
    await untilMenu(page, { 'You.HasTicket': 'no' });
    const unavailable = page.locator('.option.unavailable');
    assert.equal(await unavailable.count(), 1);
    assert.equal(await unavailable.getAttribute('aria-disabled'), 'true');
    assert.match((await unavailable.getAttribute('title')) ?? '', /Not available/);
    assert.match(await unavailable.innerText(), /golden ticket/);
    const session = await currentSession(page);
    const before = await sessionState(server, session);
    // aria-disabled, not disabled: a person's click reaches it (Playwright would wait for "enabled").
    await unavailable.click({ force: true });
    await page.locator('.alert').getByText(/Refused/).waitFor();
    const after = await sessionState(server, session);
    assert.deepEqual(after.view, before.view, 'a refused option changes nothing');
    assert.equal(after.transcript.length, before.transcript.length);
    const tried = (await traceRecords(server, session)).filter((r) => r.type === 'apply.finished' && r.payload.actionId === 'choose:2');
    assert.deepEqual(tried.map((r) => r.payload.disposition), ['rejected']);
    // Still playable: the available options work.
    await page.locator('.option:not(.unavailable)').first().click();
    await page.waitForFunction(() => !document.querySelector('.controls .menu'));
  });
});

test('a reload mid-story resumes the session from the server, and it plays on', async () => {
  await withPage(browser, server, 'reload-mid-story', async (page) => {
    await startStory(page, server, 'club-fair');
    for (let i = 0; i < 4; i++) await step(page);
    const before = await lines(page);
    const session = await currentSession(page);
    assert.ok(before.length >= 2);
    await page.reload();
    await page.locator('.transcript li.said').nth(before.length - 1).waitFor();
    assert.deepEqual(await lines(page), before, 'the same transcript, no line lost or doubled');
    assert.deepEqual(await currentSession(page), session);
    await playToEnd(page, { 'You.InClub': 'yes' });
    const said = await lines(page);
    assert.equal(new Set(said.map((l, i) => `${i}`)).size, said.length);
    assert.deepEqual(said.slice(0, before.length), before);
  });
});

test('a double click on an option executes it once', async () => {
  await withPage(browser, server, 'double-click', async (page) => {
    await startStory(page, server, 'club-fair');
    await untilMenu(page);
    const session = await currentSession(page);
    const before = await sessionState(server, session);
    await page.locator('.option:not(.unavailable)').first().dblclick();
    await page.waitForFunction(() => !document.querySelector('.controls .menu'));
    await page.waitForFunction(() => !document.getElementById('app')?.hasAttribute('aria-busy'));
    const after = await sessionState(server, session);
    assert.equal(after.version, before.version + 1, 'one execution moves the session once');
    const chosen = (await traceRecords(server, session)).filter(
      (r) => r.type === 'apply.finished' && String(r.payload.actionId).startsWith('choose:') && r.payload.disposition === 'executed',
    );
    assert.equal(chosen.length, 1, JSON.stringify(chosen));
  });
});

test('the keyboard alone plays: numbers pick options, Enter moves on', async () => {
  await withPage(browser, server, 'keyboard', async (page) => {
    await startStory(page, server, 'club-fair');
    for (let i = 0; i < 30 && !(await page.locator('.controls .menu').count()); i++) {
      if (await page.locator('.controls form.question').count()) {
        await page.locator('.controls form.question input').focus();
        await page.keyboard.type('no');
        await page.keyboard.press('Enter');
      } else {
        await page.keyboard.press('Enter');
      }
      await page.waitForFunction(() => !document.getElementById('app')?.hasAttribute('aria-busy'));
    }
    await page.locator('.controls .menu').waitFor();
    await page.keyboard.press('2'); // the chess club
    await page.waitForFunction(() => !document.querySelector('.controls .menu'));
    await page.waitForFunction(() => !document.getElementById('app')?.hasAttribute('aria-busy'));
    const trace = await traceRecords(server, await currentSession(page));
    assert.ok(trace.some((r) => r.type === 'apply.finished' && r.payload.actionId === 'choose:1' && r.payload.disposition === 'executed'));
  });
});

test('a second tab resumes the same session and follows the other tab', async () => {
  await withPage(browser, server, 'second-tab', async (first, context) => {
    await startStory(first, server, 'club-fair');
    await step(first);
    const session = await currentSession(first);
    const { openPage } = await import('./harness.mjs');
    const second = await openPage(context, server);
    await second.goto(`${server.url}/`);
    await second.getByRole('link', { name: /Continue/ }).first().click();
    await second.waitForURL(new RegExp(session.id));
    await second.locator('.controls button, .controls input').first().waitFor();
    assert.deepEqual(await lines(second), await lines(first));
    // A move in the second tab reaches the first through the live trace.
    const count = (await lines(first)).length;
    await step(second);
    await step(second);
    await first.waitForFunction((n) => document.querySelectorAll('.transcript li.said').length > n, count);
    assert.deepEqual(await lines(first), await lines(second));
  });
});

test('a tab whose view went stale is told so, and its click does nothing (If-Match, S29)', async () => {
  await withPage(browser, server, 'stale-tab', async (first, context) => {
    await startStory(first, server, 'club-fair');
    const session = await currentSession(first);
    const { openPage } = await import('./harness.mjs');
    const second = await openPage(context, server);
    // The second tab does not follow the live trace, so it keeps the view it was drawn on.
    await second.route('**/trace?**', (route) => route.abort());
    await second.goto(`${server.url}/`);
    await second.getByRole('link', { name: /Continue/ }).first().click();
    await second.waitForURL(new RegExp(session.id));
    await second.locator('.controls button, .controls input').first().waitFor();
    const before = (await sessionState(server, session)).version;
    await step(first);
    const moved = (await sessionState(server, session)).version;
    assert.equal(moved, before + 1, 'the first tab moved the session once');
    await step(second);
    await second.locator('[role=alert]').filter({ hasText: 'moved on elsewhere' }).waitFor();
    assert.equal((await sessionState(server, session)).version, moved, "the stale tab's click executed nothing");
    const applied = (await traceRecords(server, session)).filter((r) => r.type === 'apply.finished');
    assert.equal(applied.length, 1, JSON.stringify(applied));
    // It was drawn afresh: a click now is on the current view, and goes through.
    await step(second);
    assert.equal((await sessionState(server, session)).version, moved + 1);
  });
});

// The lighthouse's first option asks about the lamp again and again: its player takes the last.
for (const [name, pick] of [['the-crossing.json', 'first'], ['the-lighthouse.xml', 'last']]) {
  test(`${name} (a ChatMapper export) plays to its end by clicking`, async () => {
    await withPage(browser, server, name, async (page) => {
      await startStory(page, server, name.replace(/\..*$/, ''));
      await playToEnd(page, {}, 80, pick);
      await page.getByRole('heading', { name: 'The end' }).waitFor();
      assert.ok((await lines(page)).length > 2);
    });
  });
}

/** axe-core's serious and critical violations on the page as it stands. */
async function seriousViolations(page) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target).join(', ')})`);
}

test('the home page has no serious accessibility violations (axe-core)', async () => {
  await withPage(browser, server, 'axe-home', async (page) => {
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: /Play .*club-fair/ }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
  });
});

test('the player has no serious accessibility violations (axe-core), on a phone and a desktop', async () => {
  for (const [label, viewport] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1200, height: 800 }]]) {
    await withPage(
      browser,
      server,
      `axe-${label}`,
      async (page) => {
        await startStory(page, server, 'club-fair');
        await untilMenu(page, { 'You.HasTicket': 'no' });
        assert.deepEqual(await seriousViolations(page), []);
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
        assert.ok(scroll, `the ${label} page scrolls sideways`);
        if (process.env.STAGEHAND_DOC_SCREENSHOTS && label === 'desktop') {
          await page.locator('.option.unavailable').hover();
          await page.screenshot({ path: `${repo}/docs/screenshots/menu.png` });
        }
      },
      { viewport },
    );
  }
});

test('undo, jump, restart, save and load go through the view and the API', async () => {
  await withPage(browser, server, 'undo-jump-restart-save', async (page) => {
    await startStory(page, server, 'club-fair');
    for (let i = 0; i < 3; i++) await step(page);
    const session = await currentSession(page);
    const executed = async (id) =>
      (await traceRecords(server, session)).filter((r) => r.type === 'apply.finished' && r.payload.actionId === id && r.payload.disposition === 'executed').length;
    await page.getByRole('navigation', { name: 'Session' }).getByRole('button', { name: 'Undo' }).click();
    await page.locator('.transcript li.note').getByText(/Undo/).waitFor();
    assert.equal(await executed('undo'), 1);
    await page.getByLabel('Jump to a scene').selectOption('jump:the-party');
    await page.getByRole('button', { name: 'Jump', exact: true }).click();
    await page.locator('.transcript li.said').getByText('Tonight is the fair party').waitFor();
    assert.equal(await executed('jump:the-party'), 1);
    await page.getByRole('navigation', { name: 'Session' }).getByRole('button', { name: 'Restart' }).click();
    await page.locator('.transcript li.note').getByText(/Restart/).waitFor();
    assert.equal(await executed('restart'), 1);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Save' }).click();
    const saved = await download;
    const snapshot = JSON.parse(readFileSync(await saved.path(), 'utf8'));
    assert.equal(snapshot.sessionId, session.id);
    assert.ok(Array.isArray(snapshot.journal));
    // Load: the snapshot becomes a new session of the document, standing where the save stood (W7).
    const atSave = await sessionState(server, session);
    await step(page); // the saved session moves on; the loaded one must not have
    await page.locator('#load-file').setInputFiles(await saved.path());
    await page.waitForFunction((id) => /#\/play\//.test(location.hash) && !location.hash.includes(id), session.id);
    await page.locator('.controls button, .controls input').first().waitFor();
    const loaded = await currentSession(page);
    assert.notEqual(loaded.id, session.id);
    assert.deepEqual((await sessionState(server, loaded)).view, atSave.view, 'the loaded session stands where the save stood');
    await step(page);
    const moved = (await traceRecords(server, loaded)).filter((r) => r.type === 'apply.finished' || r.type === 'input.settled');
    assert.equal(moved.length, 1, 'and plays on by itself');
    assert.equal(moved[0].sequence, 2, 'its trace is its own, from 1');
  });
});
