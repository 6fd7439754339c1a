// The home page: the sessions this browser keeps, the documents the server holds, an upload.
import * as api from './api';
import { fill, h } from './dom';
import { forget, keep, keptSessions } from './store';
import type { Diagnostic } from './types';

/** A seed the page chooses, so a replay into an edited script can use it again (W8). */
export function freshSeed(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return word[0];
}

/** Starts a session of a document and shows it. */
export async function play(documentId: string, name: string): Promise<void> {
  const seed = freshSeed();
  const created = await api.createSession(documentId, { seed });
  keep({ sessionId: created.sessionId, token: created.token, documentId, name, seed });
  location.hash = `#/play/${encodeURIComponent(created.sessionId)}`;
}

/** A diagnostics list (the preview draws them with their source; here, as text). */
export function diagnosticsList(diagnostics: Diagnostic[]): HTMLElement {
  return h(
    'ul',
    { class: 'diagnostics' },
    ...diagnostics.map((d) =>
      h('li', { class: `diagnostic ${d.severity ?? 'error'}` }, `${d.file ?? ''}:${d.line ?? '?'}:${d.column ?? '?'} ${d.code ?? ''} ${d.message ?? ''}`),
    ),
  );
}

/** Draws the home page into `root`. */
export async function showHome(root: HTMLElement): Promise<void> {
  const sessions = h('section', { 'aria-labelledby': 'sessions-heading' }, h('h2', { id: 'sessions-heading' }, 'Your sessions'));
  const documents = h('section', { 'aria-labelledby': 'documents-heading' }, h('h2', { id: 'documents-heading' }, 'Documents'));
  const message = h('div', { role: 'alert', class: 'alert' });
  const upload = h('input', { type: 'file', id: 'upload-file' });
  const uploadForm = h(
    'form',
    { class: 'upload' },
    h('label', { for: 'upload-file' }, 'Upload a script, playbook or ChatMapper export'),
    h('div', { class: 'row' }, upload, h('button', { type: 'submit' }, 'Upload')),
  );
  fill(
    root,
    h('header', { class: 'home-head' }, h('h1', {}, 'Stagehand'), h('a', { href: '#/preview', class: 'button-like' }, "Writer's preview")),
    message,
    sessions,
    documents,
    uploadForm,
  );
  const kept = keptSessions();
  if (kept.length) {
    const list = h('ul', { class: 'sessions' });
    for (const session of kept) {
      const forgetButton = h('button', { type: 'button', class: 'tool' }, 'Forget');
      forgetButton.setAttribute('aria-label', `Forget ${session.name} (${session.sessionId.slice(0, 8)})`);
      forgetButton.addEventListener('click', () => {
        forget(session.sessionId);
        void showHome(root);
      });
      list.append(
        h(
          'li',
          {},
          h('a', { href: `#/play/${encodeURIComponent(session.sessionId)}` }, `Continue ${session.name}`),
          ' ',
          h('span', { class: 'muted' }, `(${session.sessionId.slice(0, 8)}, ${new Date(session.savedAt).toLocaleString()})`),
          ' ',
          forgetButton,
        ),
      );
    }
    sessions.append(list);
  } else {
    sessions.append(h('p', { class: 'muted' }, 'None yet: start one from a document below.'));
  }
  uploadForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = upload.files?.[0];
    if (!file) return;
    try {
      await api.uploadDocument(file.name, await file.arrayBuffer());
      await showHome(root);
    } catch (error) {
      const diagnostics = error instanceof api.ApiError ? error.problem.diagnostics ?? [] : [];
      fill(message, h('p', {}, api.describeError(error)), diagnostics.length ? diagnosticsList(diagnostics) : null);
    }
  });
  try {
    const listed = await api.listDocuments();
    if (!listed.length) documents.append(h('p', { class: 'muted' }, 'The server holds no documents yet.'));
    const list = h('ul', { class: 'documents' });
    for (const document of listed) {
      const button = h('button', { type: 'button', class: 'primary' }, `Play ${document.name}`);
      button.addEventListener('click', async () => {
        try {
          await play(document.documentId, document.name);
        } catch (error) {
          fill(message, h('p', {}, api.describeError(error)));
        }
      });
      list.append(h('li', {}, button, ' ', h('span', { class: 'muted' }, document.kind)));
    }
    documents.append(list);
  } catch (error) {
    documents.append(h('p', {}, api.describeError(error)));
  }
}
