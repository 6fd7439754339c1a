// The player: one session, drawn from what the server says (the view and the transcript), moved
// only through the actions the view advertises (W1), each intended action under one idempotency
// key however often it is clicked (W2).
import * as api from './api';
import { download, fill, h } from './dom';
import { renderSpeech } from './speech';
import { followTrace } from './sse';
import { forget, keep, type KeptSession } from './store';
import type { Action, Applied, Reported, TraceRecord, TranscriptLine, View } from './types';

/** A menu entry: an option that may be chosen, or one that may not (with why). */
interface MenuEntry {
  position: number;
  label: string;
  actionId: string;
  why?: string;
}

/** What the player tells its host page. */
export interface PlayerHooks {
  /** The view changed (the preview highlights the graph's current node). */
  viewChanged?(view: View): void;
  /** The player sits inside another page (the preview): an h2 title and no link home. */
  embedded?: boolean;
}

/** Whether a failed request may be sent again under the same key: it did not reach the server,
 * or the server says nothing was executed and asks for a retry (W2). */
export function retriable(error: unknown): boolean {
  if (!(error instanceof api.ApiError)) return false;
  const kind = error.problem.type ?? '';
  return error.status === 0 || [408, 429, 503].includes(error.status) || (error.status === 409 && kind.endsWith(':conflict'));
}

/** Sends `request` (the same key each time) until it is answered, at most three times. */
async function withRetries<T>(request: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (attempt >= 3 || !retriable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

/** What Enter does: the move the run waits for (`next`, else `done` for a command, else `retry`). */
export function primaryMove(view: View): Action | undefined {
  for (const id of ['next', 'done', 'retry']) {
    const action = view.actions.find((a) => a.id === id);
    if (action) return action;
  }
  return undefined;
}

/** The menu a view offers: its `choose:N` actions and its unavailable options, by position. */
export function menuOf(view: View): MenuEntry[] {
  const entries: MenuEntry[] = [];
  for (const action of view.actions) {
    const match = /^choose:(\d+)$/.exec(action.id);
    if (match) entries.push({ position: Number(match[1]), label: action.label, actionId: action.id });
  }
  for (const option of view.unavailable ?? []) {
    entries.push({ position: option.position, label: option.label, actionId: `choose:${option.position}`, why: option.why });
  }
  return entries.sort((a, b) => a.position - b.position);
}

export class Player {
  readonly root: HTMLElement;
  readonly session: KeptSession;
  private readonly hooks: PlayerHooks;
  private view: View | null = null;
  private version = 0;
  private lastLine = 0;
  private readonly keys = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly ownKeys = new Set<string>();
  private follower: { stop(): void; last(): number } | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  private readonly transcript: HTMLOListElement;
  private readonly controls: HTMLElement;
  private readonly status: HTMLElement;
  private readonly alert: HTMLElement;
  private readonly toolbar: HTMLElement;
  private readonly traceList: HTMLOListElement;
  private readonly traceState: HTMLElement;
  private readonly onKey = (event: KeyboardEvent) => this.key(event);

  constructor(root: HTMLElement, session: KeptSession, hooks: PlayerHooks = {}) {
    this.root = root;
    this.session = session;
    this.hooks = hooks;
    this.transcript = h('ol', { class: 'transcript' });
    this.controls = h('section', { class: 'controls', 'aria-label': 'Your move' });
    this.status = h('p', { class: 'status', role: 'status' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.toolbar = h('nav', { class: 'toolbar', 'aria-label': 'Session' });
    this.traceList = h('ol', { class: 'trace-list', tabindex: '0', 'aria-label': 'Trace records' });
    this.traceState = h('span', { class: 'trace-state' }, 'not connected');
    const trace = h(
      'details',
      { class: 'trace' },
      h('summary', {}, 'Trace ', this.traceState),
      this.traceList,
    );
    fill(
      root,
      h('header', { class: 'player-head' }, h(hooks.embedded ? 'h2' : 'h1', {}, session.name || 'Story'), this.toolbar),
      h('div', { role: 'log', 'aria-live': 'polite', 'aria-label': 'Transcript' }, this.transcript),
      this.alert,
      this.controls,
      this.status,
      trace,
    );
    document.addEventListener('keydown', this.onKey);
  }

  /** Loads the session from the server and follows its trace. */
  async start(): Promise<void> {
    await this.refresh();
    if (this.stopped) return;
    const records = await api.traceLines(this.session.sessionId, this.session.token, 0).catch(() => []);
    for (const record of records) this.traceRecord(record, false);
    const after = records.length ? records[records.length - 1].sequence : 0;
    this.follower = followTrace(this.session.sessionId, this.session.token, after, {
      record: (record) => this.traceRecord(record, true),
      state: (connected) => {
        this.traceState.textContent = connected ? 'live' : 'reconnecting';
      },
    });
  }

  /** Stops following the trace and listening to keys. */
  stop(): void {
    this.stopped = true;
    this.follower?.stop();
    document.removeEventListener('keydown', this.onKey);
  }

  /** The session's current view. */
  current(): View | null {
    return this.view;
  }

  /**
   * Reads what the server has after the last transcript line, until it has no more. A call while
   * a read is under way makes that read go round once more, so what committed after it began is
   * read too.
   */
  refresh(): Promise<void> {
    this.again = true;
    if (this.refreshing) return this.refreshing;
    this.refreshing = (async () => {
      try {
        while (this.again) {
          this.again = false;
          const shown = await api.showSession(this.session.sessionId, this.session.token, this.lastLine);
          if (!this.session.documentId) this.session.documentId = shown.documentId; // a shared link's session
          this.appendLines(shown.transcript);
          this.setView(shown.view, shown.version);
          if (shown.transcript.length >= 1000) this.again = true;
        }
      } catch (error) {
        if (error instanceof api.ApiError && (error.status === 404 || error.status === 401)) {
          forget(this.session.sessionId);
          this.showError('This session is not on the server any more (or its token was refused).');
          fill(this.controls, h('a', { href: '#/', class: 'button-like' }, 'Back to the documents'));
        } else {
          this.showError(api.describeError(error));
        }
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private appendLines(lines: TranscriptLine[]): void {
    for (const line of lines) {
      if (line.n <= this.lastLine) continue;
      this.lastLine = line.n;
      this.appendEvent(line, line.n);
    }
  }

  private appendEvent(event: Reported, n?: number): void {
    let item: HTMLLIElement;
    switch (event.type) {
      case 'said':
        item = h(
          'li',
          { class: 'said' },
          event.speaker ? h('span', { class: 'speaker' }, event.speaker) : null,
          renderSpeech(event),
        );
        break;
      case 'continued':
        item = h('li', { class: 'said continued' }, renderSpeech(event));
        break;
      case 'ended':
        item = h('li', { class: 'ended' }, 'The end.');
        break;
      case 'perform':
        item = h('li', { class: 'performed' }, h('span', { class: 'tag' }, 'Command'), ' ', event.text ?? '');
        break;
      case 'refused':
        item = h('li', { class: 'refused' }, h('span', { class: 'tag' }, 'Refused'), ' ', event.text ?? '');
        break;
      default:
        return; // offers and questions are drawn as controls, not transcript lines
    }
    if (n !== undefined) item.dataset.n = String(n);
    this.transcript.append(item);
    item.scrollIntoView?.({ block: 'nearest' });
  }

  private appendNote(text: string): void {
    this.transcript.append(h('li', { class: 'note' }, text));
  }

  private setView(view: View, version: number): void {
    if (version < this.version) return; // an older answer than one already drawn
    const changed = version !== this.version || !this.view;
    this.view = view;
    this.version = version;
    if (changed) this.keys.clear(); // a new view: every intended action gets a new key
    keep({ sessionId: this.session.sessionId, token: this.session.token, documentId: this.session.documentId, name: this.session.name, seed: this.session.seed });
    this.draw();
    this.hooks.viewChanged?.(view);
  }

  /** The key of the intended action `id` on the current view: the same for every click (W2). */
  private keyFor(id: string): string {
    const slot = `${this.version}\u0000${id}`;
    let key = this.keys.get(slot);
    if (!key) {
      key = api.freshKey();
      this.keys.set(slot, key);
    }
    return key;
  }

  /** Applies an action; a second call for the same intended action joins the first. */
  act(actionId: string, label = actionId): Promise<void> {
    const key = this.keyFor(actionId);
    const running = this.inFlight.get(key);
    if (running) return running;
    const version = this.version;
    const { sessionId, token } = this.session;
    const done = this.send(key, actionId, label, () => api.apply(sessionId, token, actionId, key, version));
    this.inFlight.set(key, done);
    void done.finally(() => this.inFlight.delete(key));
    return done;
  }

  /** Answers a pending question. */
  answer(questionId: string, text: string): Promise<void> {
    const key = this.keyFor(`answer:${questionId}\u0000${text}`);
    const running = this.inFlight.get(key);
    if (running) return running;
    const version = this.version;
    const { sessionId, token } = this.session;
    const done = this.send(key, `answer:${questionId}`, text, () => api.input(sessionId, token, questionId, text, key, version));
    this.inFlight.set(key, done);
    void done.finally(() => this.inFlight.delete(key));
    return done;
  }

  private async send(key: string, actionId: string, label: string, request: () => Promise<Applied>): Promise<void> {
    this.ownKeys.add(key);
    this.clearError();
    this.status.textContent = 'Sending…';
    this.root.setAttribute('aria-busy', 'true');
    try {
      const answer = await withRetries(request);
      const before = this.lastLine;
      this.status.textContent = '';
      if (answer.receipt.disposition === 'executed') {
        if (/^(undo|restart|jump:)/.test(actionId)) this.appendNote(`— ${label} —`);
        if (actionId.startsWith('answer:')) this.appendNote(`${actionId.slice('answer:'.length)}: ${label}`);
        // Commands are not transcript lines: a command carried out shows where it happened (W6).
        if (actionId === 'done' || actionId === 'failed') {
          const command = label.replace(/^(Done|Failed):\s*/, '');
          this.appendEvent({ type: 'perform', text: actionId === 'done' ? command : `${command} (failed)` });
        }
      } else if (answer.receipt.disposition === 'failed') {
        this.showError(`Failed: ${answer.receipt.error}`);
      }
      await this.refresh();
      if (this.lastLine === before && answer.version > this.version) this.setView(answer.view, answer.version);
    } catch (error) {
      this.status.textContent = '';
      if (error instanceof api.ApiError && error.problem.type?.endsWith(':session-moved')) {
        // Chosen on a view the session has left (another tab or player moved it): nothing was
        // done; show where it stands now, to choose again.
        this.showError('The story moved on elsewhere before this was sent; nothing was done. Here is where it stands now.');
        await this.refresh();
      } else if (error instanceof api.ApiError && error.problem.type?.endsWith(':action-rejected')) {
        this.showError(`Refused: ${error.message}`);
        if (error.problem.view && typeof error.problem.version === 'number') {
          await this.refresh();
        }
      } else {
        this.showError(api.describeError(error));
      }
    } finally {
      this.root.removeAttribute('aria-busy');
    }
  }

  private showError(text: string): void {
    fill(this.alert, h('p', {}, text));
    this.alert.classList.add('shown');
  }

  private clearError(): void {
    fill(this.alert);
    this.alert.classList.remove('shown');
  }

  private traceRecord(record: TraceRecord, live: boolean): void {
    const payload = record.payload as Record<string, unknown>;
    const what = String(payload.actionId ?? payload.questionId ?? payload.disposition ?? '');
    this.traceList.append(
      h('li', { 'data-sequence': record.sequence }, `${record.sequence} ${record.type}${what ? ' ' + what : ''}`),
    );
    // A move made elsewhere (another tab, another client): catch up with the server.
    const finished = !record.engine && (record.type === 'apply.finished' || record.type === 'input.settled');
    if (live && finished && !this.ownKeys.has(String(payload.key ?? ''))) void this.refresh();
  }

  private draw(): void {
    const view = this.view;
    if (!view) return;
    this.drawToolbar(view);
    const parts: (HTMLElement | null)[] = [];
    const description = h('p', { class: 'description' }, view.description);
    if (view.status === 'done') {
      parts.push(h('h2', { class: 'end-banner', tabindex: '-1' }, 'The end'));
    } else if (view.status === 'error' || view.status === 'stopped') {
      parts.push(h('h2', { class: 'end-banner error' }, view.status === 'error' ? 'The story cannot go on here' : 'The story was stopped'));
      if (view.lastError) parts.push(h('p', { class: 'last-error' }, view.lastError));
    }
    const menu = menuOf(view);
    if (menu.length) parts.push(this.drawMenu(menu));
    for (const question of view.pendingQuestions) parts.push(this.drawQuestion(question.questionId, question.text));
    const moves = view.actions.filter((a) => /^(next|done|failed|retry)$/.test(a.id));
    if (moves.length) {
      const perform = view.actions.find((a) => a.id === 'done');
      if (perform) parts.push(h('p', { class: 'perform' }, h('span', { class: 'tag' }, 'Command'), ' ', perform.label.replace(/^Done:\s*/, '')));
      const row = h('div', { class: 'moves' });
      const primary = primaryMove(view);
      for (const action of moves) row.append(this.button(action, action === primary ? 'primary' : ''));
      if (primary) row.append(h('span', { class: 'hint' }, 'or press Enter'));
      parts.push(row);
    }
    if (!parts.length) parts.push(description);
    else parts.unshift(h('p', { class: 'description visually-hidden' }, view.description));
    // Keyboard use: when the control that had the focus was redrawn away, the focus goes to the
    // new view's first control (a question's field, the first option, the move, the end).
    const hadFocus = this.controls.contains(document.activeElement) || document.activeElement === document.body;
    fill(this.controls, ...parts);
    if (hadFocus) {
      const focus = this.controls.querySelector<HTMLElement>('input, .option:not(.unavailable), .moves .primary, .end-banner');
      focus?.focus({ preventScroll: true });
    }
  }

  private button(action: Action, extra = ''): HTMLButtonElement {
    const button = h('button', { type: 'button', class: `action ${extra}`.trim(), 'data-action': action.id }, action.label);
    button.addEventListener('click', () => void this.act(action.id, action.label));
    return button;
  }

  private drawMenu(menu: MenuEntry[]): HTMLElement {
    const list = h('ol', { class: 'menu', 'aria-labelledby': 'menu-heading' });
    menu.forEach((entry, index) => {
      const number = index + 1;
      const whyId = `why-${entry.position}`;
      const button = h(
        'button',
        {
          type: 'button',
          class: entry.why ? 'option unavailable' : 'option',
          'data-action': entry.actionId,
          'aria-disabled': entry.why ? 'true' : undefined,
          'aria-describedby': entry.why ? whyId : undefined,
          title: entry.why ? `Not available: ${entry.why}` : undefined,
          'aria-keyshortcuts': number <= 9 ? String(number) : undefined,
        },
        h('span', { class: 'number', 'aria-hidden': 'true' }, `${number}`),
        h('span', { class: 'label' }, entry.label),
      );
      // An unavailable option is still sent when clicked, so the server's refusal is shown (W3).
      button.addEventListener('click', () => void this.act(entry.actionId, entry.label));
      const item = h('li', {}, button);
      if (entry.why) item.append(h('span', { id: whyId, class: 'why' }, `Not available: ${entry.why}`));
      list.append(item);
    });
    return h('div', { class: 'menu-box' }, h('h2', { id: 'menu-heading', class: 'menu-heading' }, 'Choose'), list);
  }

  private drawQuestion(questionId: string, text: string): HTMLElement {
    const id = `answer-${questionId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const field = h('input', { id, name: 'answer', type: 'text', autocomplete: 'off', required: true });
    const form = h(
      'form',
      { class: 'question', 'data-question': questionId },
      h('label', { for: id }, text || questionId),
      h('div', { class: 'row' }, field, h('button', { type: 'submit' }, 'Answer')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = field.value.trim();
      if (value) void this.answer(questionId, value);
    });
    return form;
  }

  private drawToolbar(view: View): void {
    const has = (id: string) => view.actions.find((a) => a.id === id);
    const tool = (id: string, label: string) => {
      const action = has(id);
      const button = h('button', { type: 'button', class: 'tool', 'data-action': id, disabled: !action }, label);
      if (action) button.addEventListener('click', () => void this.act(id, action.label));
      return button;
    };
    const jumps = view.actions.filter((a) => a.id.startsWith('jump:'));
    const parts: HTMLElement[] = [tool('undo', 'Undo'), tool('restart', 'Restart')];
    if (jumps.length) {
      const select = h('select', { id: 'jump-to', 'aria-label': 'Jump to a scene' });
      for (const jump of jumps) select.append(h('option', { value: jump.id }, jump.label));
      const go = h('button', { type: 'button', class: 'tool' }, 'Jump');
      go.addEventListener('click', () => {
        const action = jumps.find((a) => a.id === select.value);
        if (action) void this.act(action.id, action.label);
      });
      parts.push(h('span', { class: 'jump' }, select, go));
    }
    const save = h('button', { type: 'button', class: 'tool' }, 'Save');
    save.addEventListener('click', () => void this.save());
    const loadInput = h('input', { type: 'file', id: 'load-file', accept: '.json,application/json', class: 'visually-hidden' });
    loadInput.addEventListener('change', () => {
      const file = loadInput.files?.[0];
      if (file) void this.load(file);
    });
    const load = h('label', { for: 'load-file', class: 'tool button-like', tabindex: '0', role: 'button' }, 'Load');
    load.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        loadInput.click();
      }
    });
    const home = h('a', { href: '#/', class: 'tool button-like' }, 'Documents');
    parts.push(save, load, loadInput);
    if (!this.hooks.embedded) parts.push(home);
    fill(this.toolbar, ...parts);
  }

  private async save(): Promise<void> {
    try {
      const text = await api.snapshot(this.session.sessionId, this.session.token);
      download(`${(this.session.name || 'story').replace(/[^A-Za-z0-9._-]+/g, '-')}.save.json`, text);
      this.status.textContent = 'Saved: the snapshot was downloaded.';
    } catch (error) {
      this.showError(api.describeError(error));
    }
  }

  /** Loads a downloaded snapshot as a new session of this document (the server must accept it: W7). */
  private async load(file: File): Promise<void> {
    try {
      const snapshot = JSON.parse(await file.text()) as unknown;
      const created = await api.createSession(this.session.documentId, { snapshot });
      keep({ sessionId: created.sessionId, token: created.token, documentId: this.session.documentId, name: this.session.name, seed: this.session.seed });
      location.hash = `#/play/${encodeURIComponent(created.sessionId)}`;
    } catch (error) {
      this.showError(`Load failed: ${api.describeError(error)}`);
    }
  }

  private key(event: KeyboardEvent): void {
    if (!this.view || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    const typing = target && (target.closest('input, textarea, select, [contenteditable]') !== null);
    if (typing) return;
    if (/^[1-9]$/.test(event.key)) {
      const entry = menuOf(this.view)[Number(event.key) - 1];
      if (entry) {
        event.preventDefault();
        void this.act(entry.actionId, entry.label);
      }
      return;
    }
    if (event.key === 'Enter') {
      const onControl = target && target.closest('button, a, summary, label[role=button]') !== null;
      if (onControl) return; // Enter on a control is that control's click
      const move = primaryMove(this.view);
      if (move) {
        event.preventDefault();
        void this.act(move.id, move.label);
      }
    }
  }
}
