// An agent playbook played in a real browser (issue 15 item 1: "any session of any engine"):
// the example machine served with its shell-script players bound by `--player`/`--judge`, the
// Boss's task and reply typed into the page's question field, the server making the agents'
// calls between the Boss's turns.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, playToEnd, repo, startServer, startStory, withPage } from './harness.mjs';

let server;
let browser;

const script = (name) => `exec:sh ${join(repo, 'examples', 'agents', name)}`;

before(async () => {
  server = await startServer({
    examples: ['agents/write-review-revise.toml'],
    args: ['--player', `writer=${script('writer.sh')}`, '--player', `reviewer=${script('reviewer.sh')}`,
      '--judge', script('judge.sh')],
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('an agent playbook plays in the page: the task, the reviewer asking the Boss, the end', async () => {
  await withPage(browser, server, 'agents-to-the-end', async (page) => {
    await startStory(page, server, 'write-review-revise');
    // The machine waits for the Boss's task: a question the page shows as a text field.
    const question = page.locator('.controls form.question').first();
    await question.waitFor();
    const task = await question.getAttribute('data-question');
    // "a title" makes the reviewer ask the Boss first; the Boss's reply is the next answer.
    const answers = { [task]: 'an essay with a title' };
    const steps = await playToEnd(page, new Proxy(answers, { get: (a, k) => a[k] ?? 'Playful, please.' }));
    assert.ok(steps >= 2, `only ${steps} steps: the task and the Boss's reply`);
    await page.getByRole('heading', { name: 'The end' }).waitFor();
    const said = await page.locator('.transcript li.said').allInnerTexts();
    assert.ok(said.some((l) => /title/i.test(l)), `the reviewer's question about the title: ${said.join('\n')}`);
    assert.ok(said.some((l) => l.includes('Draft')), `the writer's draft: ${said.join('\n')}`);
  });
});
