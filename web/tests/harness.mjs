// What every browser test shares: the real `stagehand serve` on a loopback port with a temporary
// SQLite database, Debian's Chromium driven by playwright-core (never a downloaded browser), a
// screenshot on failure, and a few reads of the API to check what the page did (W12).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const results = join(repo, 'web', 'test-results');
export const binary = process.env.STAGEHAND_BIN ?? join(repo, 'target', 'debug', 'stagehand');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** How long one wait for the page may take (ms): generous for a shared 2-core machine. */
export const WAIT = 15_000;

/**
 * Starts `stagehand serve` with `examples` (names under examples/) copied into a fresh folder.
 * `watch: true` serves that folder with --watch; `watchFolder` serves a folder as it is (no copy:
 * for tests that never write to it); `args` are more of serve's flags (an agent lineup). Resolves
 * to { url, folder, documents, stop }.
 */
export async function startServer({ examples = [], watch = false, watchFolder = undefined, args: extra = [] } = {}) {
  if (!existsSync(binary)) throw new Error(`no stagehand binary at ${binary}: cargo build -p stagehand first`);
  const folder = mkdtempSync(join(tmpdir(), 'stagehand-web-'));
  let documents = join(folder, 'documents');
  mkdirSync(documents);
  for (const name of examples) copyFileSync(join(repo, 'examples', name), join(documents, basename(name)));
  if (watchFolder) {
    documents = watchFolder;
    watch = true;
  }
  const args = ['serve', '--listen', '127.0.0.1:0', '--database', `sqlite:${join(folder, 'test.db')}`];
  args.push(watch ? '--watch' : '--documents', documents, ...extra);
  const child = spawn(binary, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within ${WAIT} ms:\n${output}`)), WAIT);
    const read = (chunk) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    url,
    folder,
    documents,
    log: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((done) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            done();
          }, 5000);
          child.on('exit', () => {
            clearTimeout(timer);
            done();
          });
        });
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless. */
export function launch() {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
}

/** A new page on `server` (which serves the page itself at `/`, embedded in the binary). */
export async function openPage(context, server) {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  return page;
}

/** Runs `body(page)` in a fresh browser context; on failure saves a screenshot named after the test. */
export async function withPage(browser, server, name, body, options = {}) {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1000, height: 800 } });
  const page = await openPage(context, server);
  try {
    await body(page, context);
  } catch (error) {
    mkdirSync(results, { recursive: true });
    const file = join(results, `${name.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    console.log(`screenshot of the failure: ${file}`);
    throw error;
  } finally {
    await context.close();
  }
}

/** The session this page shows: its id (from the fragment) and token (from localStorage). */
export async function currentSession(page) {
  return page.evaluate(() => {
    const id = decodeURIComponent(location.hash.replace(/^#\/play\//, ''));
    const kept = JSON.parse(localStorage.getItem('stagehand.sessions.v1') ?? '[]');
    const session = kept.find((s) => s.sessionId === id);
    return { id, token: session?.token };
  });
}

/** `GET /v1/sessions/{id}` as the test reads it. */
export async function sessionState(server, session) {
  const response = await fetch(`${server.url}/v1/sessions/${session.id}`, { headers: { Authorization: `Bearer ${session.token}` } });
  if (!response.ok) throw new Error(`GET session: ${response.status}`);
  return response.json();
}

/** The session's trace records. */
export async function traceRecords(server, session) {
  const response = await fetch(`${server.url}/v1/sessions/${session.id}/trace?after=0`, { headers: { Authorization: `Bearer ${session.token}` } });
  const text = await response.text();
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Starts a session of the document named like `name` from the home page. */
export async function startStory(page, server, name) {
  await page.goto(`${server.url}/`);
  await page.getByRole('button', { name: new RegExp(`Play .*${name}`) }).click();
  await page.waitForURL(/#\/play\//);
  await page.locator('.controls').locator('button, input, .end-banner').first().waitFor();
}

/**
 * Takes one step the way a person clicking through would: answers a question (`answers` by
 * question id, else `no`), chooses the first (or `pick` = 'last') available option, or presses the move button.
 * Returns false at the end.
 */
export async function step(page, answers = {}, pick = 'first') {
  const controls = page.locator('.controls');
  await controls.locator('button, input, .end-banner').first().waitFor();
  if (await controls.locator('.end-banner').count()) return false;
  const question = controls.locator('form.question').first();
  if (await question.count()) {
    const id = await question.getAttribute('data-question');
    await question.locator('input').fill(answers[id] ?? 'no');
    await question.getByRole('button', { name: 'Answer' }).click();
  } else if (await controls.locator('.option:not(.unavailable)').count()) {
    await controls.locator('.option:not(.unavailable)')[pick]().click();
  } else {
    await controls.locator('.moves button').first().click();
  }
  // The player marks its own root busy while a move is in flight (the page's, or the preview's).
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  return true;
}

/** Steps until the end (bounded). */
export async function playToEnd(page, answers = {}, bound = 80, pick = 'first') {
  for (let i = 0; i < bound; i++) {
    if (!(await step(page, answers, pick))) return i;
  }
  throw new Error(`the story did not end within ${bound} steps`);
}
