// The writer's preview over `stagehand serve --watch DIR` (W9): the folder's documents, their
// diagnostics over the source with the span marked, the graph with the current node, a player
// that can restart at any anchor, and, when a script changes, the writer's moves replayed into
// the new version.
import * as api from './api';
import { fill, h } from './dom';
import { freshSeed } from './home';
import { Player } from './player';
import { keep, type KeptSession } from './store';
import type { Diagnostic, TraceRecord, View } from './types';

/** A watched document, as `GET /v1/watch` lists it. */
export interface Watched {
  path: string;
  name?: string;
  kind?: string;
  documentId?: string;
  diagnostics: Diagnostic[];
}

interface WatchListing {
  folder?: string;
  documents: Watched[];
}

/** One move of a session, read back from its trace. */
export type Move = { actionId: string } | { questionId: string; text: string };

/** The executed moves of a trace, in order (rejected ones did nothing and are left out). */
export function movesOf(records: TraceRecord[]): Move[] {
  const moves: Move[] = [];
  const inputs = new Map<string, { questionId: string; text: string }>();
  for (const record of records) {
    // The engine's own records (an agent runtime's `apply.finished`, H48) are not the session's moves.
    if (record.engine) continue;
    const p = record.payload as Record<string, unknown>;
    if (record.type === 'input.received' && record.callId) {
      inputs.set(record.callId, { questionId: String(p.questionId ?? ''), text: String(p.text ?? '') });
    } else if (record.type === 'apply.finished' && p.disposition !== 'rejected') {
      moves.push({ actionId: String(p.actionId ?? '') });
    } else if (record.type === 'input.settled' && p.disposition !== 'rejected' && record.callId) {
      const asked = inputs.get(record.callId);
      if (asked) moves.push(asked);
    }
  }
  return moves;
}

/** The lines a diagnostic marks: the source around it, the span highlighted (W9). */
export function sourceExcerpt(source: string, diagnostic: Diagnostic): HTMLElement {
  const lines = source.split('\n');
  const line = Math.max(1, diagnostic.line ?? 1);
  const column = Math.max(1, diagnostic.column ?? 1);
  let endLine = diagnostic.endLine ?? line;
  let endColumn = diagnostic.endColumn;
  if (diagnostic.span && diagnostic.span.end > diagnostic.span.start) {
    const bytes = new TextEncoder().encode(source);
    const before = new TextDecoder().decode(bytes.slice(0, diagnostic.span.end));
    const upTo = before.split('\n');
    endLine = upTo.length;
    endColumn = [...upTo[upTo.length - 1]].length + 1;
  }
  const pre = h('pre', { class: 'source', tabindex: '0', 'aria-label': `Source around line ${line}` });
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, Math.max(line, endLine) + 2);
  for (let number = first; number <= last; number++) {
    const text = [...(lines[number - 1] ?? '').replace(/\r$/, '')];
    const row = h('span', { class: number >= line && number <= endLine ? 'line marked' : 'line', 'data-line': number });
    row.append(h('span', { class: 'gutter', 'aria-hidden': 'true' }, String(number).padStart(4, ' ') + ' │ '));
    if (number >= line && number <= endLine) {
      const from = number === line ? column - 1 : 0;
      let to = number === endLine && endColumn !== undefined ? endColumn - 1 : text.length;
      if (to <= from) {
        // No end given: mark the word (or the rest of the line) the diagnostic points at.
        const rest = text.slice(from).join('');
        const word = /^\S+/.exec(rest);
        to = from + (word ? [...word[0]].length : Math.max(1, rest.length));
      }
      row.append(text.slice(0, from).join(''), h('mark', { class: 'span' }, text.slice(from, to).join('') || ' '), text.slice(to).join(''));
    } else {
      row.append(text.join(''));
    }
    pre.append(row, '\n');
  }
  return pre;
}

export class Preview {
  private listing: WatchListing = { documents: [] };
  private signature = '';
  private selected: string | undefined;
  private player: Player | null = null;
  private session: KeptSession | null = null;
  private timer: number | undefined;
  private readonly nav: HTMLElement;
  private readonly main: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly graphBox: HTMLElement;
  private graph: api.Graph | null = null;
  private graphFor: string | null = null;
  private stopped = false;

  constructor(root: HTMLElement, path?: string) {
    this.selected = path;
    this.nav = h('nav', { class: 'watched', 'aria-label': 'Watched documents' });
    this.main = h('div', { class: 'preview-main' });
    this.notice = h('p', { class: 'notice', role: 'status' });
    this.graphBox = h('section', { class: 'graph', 'aria-label': 'Graph' });
    fill(
      root,
      h('header', { class: 'home-head' }, h('h1', {}, "Writer's preview"), h('a', { href: '#/', class: 'button-like' }, 'Documents')),
      this.notice,
      h('div', { class: 'preview' }, this.nav, this.main),
    );
  }

  /** Reads the watched folder and polls it for changes (W9: once a second on loopback). */
  async start(): Promise<void> {
    await this.poll(true);
    const tick = async () => {
      if (this.stopped) return;
      await this.poll(false);
      this.timer = window.setTimeout(tick, 1000);
    };
    this.timer = window.setTimeout(tick, 1000);
  }

  /** Stops polling and the player. */
  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
    this.player?.stop();
  }

  private async poll(first: boolean): Promise<void> {
    let listing: WatchListing;
    try {
      listing = await api.call<WatchListing>('/v1/watch');
    } catch (error) {
      if (first) {
        const missing = error instanceof api.ApiError && (error.status === 404 || error.status === 405);
        fill(
          this.main,
          h('p', {}, missing ? 'This server does not watch a folder: start it with stagehand serve --watch DIR.' : api.describeError(error)),
        );
      }
      return;
    }
    const signature = JSON.stringify(listing.documents.map((d) => [d.path, d.documentId, d.diagnostics]));
    if (!first && signature === this.signature) return;
    const before = this.listing.documents.find((d) => d.path === this.selected);
    this.listing = listing;
    this.signature = signature;
    this.drawNav();
    if (!this.selected && listing.documents.length) this.selected = listing.documents[0].path;
    const now = listing.documents.find((d) => d.path === this.selected);
    if (!now) {
      fill(this.main, h('p', {}, this.selected ? `${this.selected} is not in the watched folder.` : 'The watched folder holds no documents.'));
      return;
    }
    if (first || !before) await this.open(now);
    else if (before.documentId !== now.documentId || JSON.stringify(before.diagnostics) !== JSON.stringify(now.diagnostics)) await this.reloaded(now);
  }

  private drawNav(): void {
    const list = h('ul', {});
    for (const document of this.listing.documents) {
      const errors = document.diagnostics.filter((d) => (d.severity ?? 'error') === 'error').length;
      const link = h(
        'a',
        { href: `#/preview/${document.path.split('/').map(encodeURIComponent).join('/')}`, 'aria-current': document.path === this.selected ? 'page' : undefined },
        document.name ?? document.path,
      );
      list.append(h('li', {}, link, errors ? h('span', { class: 'badge error' }, `${errors} error${errors > 1 ? 's' : ''}`) : null));
    }
    fill(this.nav, h('h2', {}, 'Documents'), list);
  }

  private async diagnosticsView(document: Watched): Promise<HTMLElement | null> {
    if (!document.diagnostics.length) return null;
    let source = '';
    try {
      source = await api.call<string>(`/v1/watch/source?path=${encodeURIComponent(document.path)}`, { headers: { Accept: 'text/plain' } });
      if (typeof source !== 'string') source = JSON.stringify(source);
    } catch {
      source = '';
    }
    const section = h('section', { class: 'diagnostics-view', 'aria-labelledby': 'diagnostics-heading' }, h('h2', { id: 'diagnostics-heading' }, 'Diagnostics'));
    for (const d of document.diagnostics) {
      section.append(
        h(
          'article',
          { class: `diagnostic ${d.severity ?? 'error'}` },
          h('p', { class: 'diagnostic-head' }, h('strong', {}, `${d.severity ?? 'error'}${d.code ? ` ${d.code}` : ''}`), `: ${d.message ?? ''}`, h('span', { class: 'muted' }, ` ${d.file ?? document.path}:${d.line ?? '?'}:${d.column ?? '?'}`)),
          source ? sourceExcerpt(source, d) : null,
        ),
      );
    }
    return section;
  }

  private async open(document: Watched, replayFrom?: KeptSession): Promise<void> {
    this.player?.stop();
    this.player = null;
    const diagnostics = await this.diagnosticsView(document);
    const playerBox = h('section', { class: 'player preview-player', 'aria-label': 'Preview' });
    fill(this.main, diagnostics, document.documentId ? playerBox : null, document.documentId ? this.graphBox : null);
    if (!document.documentId) return; // it does not compile: the diagnostics are all there is
    const seed = replayFrom?.seed ?? freshSeed();
    const created = await api.createSession(document.documentId, { seed });
    const session: KeptSession = { sessionId: created.sessionId, token: created.token, documentId: document.documentId, name: document.name ?? document.path, seed, savedAt: Date.now() };
    keep(session);
    if (replayFrom) await this.replay(replayFrom, session);
    this.session = session;
    this.player = new Player(playerBox, session, { embedded: true, viewChanged: (view) => void this.drawGraph(document.documentId ?? '', view) });
    await this.player.start();
  }

  /** A watched script changed: show its diagnostics, or replay the writer's moves into it. */
  private async reloaded(document: Watched): Promise<void> {
    const previous = this.session;
    this.graph = null;
    await this.open(document, document.documentId && previous ? previous : undefined);
    if (!document.documentId) this.notice.textContent = `${document.name ?? document.path} changed and does not compile.`;
  }

  private async replay(from: KeptSession, into: KeptSession): Promise<void> {
    let moves: Move[] = [];
    let oldLines: string[] = [];
    try {
      moves = movesOf(await api.traceLines(from.sessionId, from.token, 0));
      oldLines = (await api.showSession(from.sessionId, from.token, 0)).transcript.map((l) => `${l.type}|${l.speaker ?? ''}|${l.text ?? ''}`);
    } catch {
      this.notice.textContent = 'The script changed; the earlier session could not be read, so the preview starts afresh.';
      return;
    }
    const linesAfter: number[] = [];
    let stoppedAt: number | null = null;
    for (const [index, move] of moves.entries()) {
      try {
        if ('actionId' in move) await api.apply(into.sessionId, into.token, move.actionId, api.freshKey());
        else await api.input(into.sessionId, into.token, move.questionId, move.text, api.freshKey());
      } catch {
        stoppedAt = index + 1;
        break;
      }
      linesAfter.push((await api.showSession(into.sessionId, into.token, 0)).transcript.length);
    }
    const newLines = (await api.showSession(into.sessionId, into.token, 0)).transcript.map((l) => `${l.type}|${l.speaker ?? ''}|${l.text ?? ''}`);
    let differs: number | null = stoppedAt;
    if (differs === null) {
      const first = newLines.findIndex((line, i) => line !== oldLines[i]);
      const mismatch = first >= 0 ? first : newLines.length !== oldLines.length ? Math.min(newLines.length, oldLines.length) : -1;
      if (mismatch >= 0) {
        const move = linesAfter.findIndex((count) => count > mismatch);
        differs = move >= 0 ? move + 1 : moves.length;
      }
    }
    this.notice.textContent =
      differs === null
        ? `The script changed: ${moves.length} move${moves.length === 1 ? '' : 's'} replayed; the story reads the same.`
        : stoppedAt !== null
          ? `The script changed: the story now differs at move ${differs}, which it no longer offers; the preview stands after move ${differs - 1}.`
          : `The script changed: ${moves.length} moves replayed; the story now differs at move ${differs}.`;
  }

  private async drawGraph(documentId: string, view: View): Promise<void> {
    try {
      if (this.graphFor !== documentId || this.graph === null) {
        this.graph = await api.documentGraph(documentId);
        this.graphFor = documentId;
      }
      const graph = (await import('./graph.js')) as typeof import('./graph');
      const index = graph.currentNode(view.stateId);
      const node = index === null ? undefined : this.graph.nodes.find((n) => n.index === index);
      const current = node?.id ?? null;
      const svg = await graph.renderDot(this.graph.graph, current);
      svg.setAttribute('role', 'img');
      const where = node ? `; the story stands at node ${node.index}${node.anchor ? ` (#${node.anchor})` : ''}` : '';
      svg.setAttribute('aria-label', `The document's graph${where}`);
      const scroll = h('div', { class: 'graph-scroll', tabindex: '0', role: 'region', 'aria-label': 'Graph (scrolls)' }, svg);
      fill(this.graphBox, h('h2', {}, 'Graph'), scroll);
      // Bring the current node into view (Graphviz names each node's group by its id).
      const drawn = [...svg.querySelectorAll('g.node')].find((g) => g.querySelector('title')?.textContent === current);
      if (drawn instanceof SVGGraphicsElement) drawn.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    } catch (error) {
      fill(this.graphBox, h('h2', {}, 'Graph'), h('p', { class: 'muted' }, `The graph is not available: ${api.describeError(error)}`));
    }
  }
}
