// What the browser keeps: the sessions it holds tokens for, in localStorage, and which one this
// tab shows, in the URL fragment (W5). A reload keeps the fragment; a second tab opened at `/`
// offers the sessions kept here.

/** A session this browser can act on. */
export interface KeptSession {
  sessionId: string;
  token: string;
  documentId: string;
  name: string;
  /** The seed the page created the session with (a replay into an edited script uses it again). */
  seed?: number;
  savedAt: number;
}

const KEY = 'stagehand.sessions.v1';

function readAll(): KeptSession[] {
  try {
    const raw = localStorage.getItem(KEY);
    const parsed = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(parsed) ? (parsed as KeptSession[]).filter((s) => s && s.sessionId && s.token) : [];
  } catch {
    return [];
  }
}

function writeAll(sessions: KeptSession[]): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(sessions.slice(0, 50)));
  } catch {
    // storage full or refused: the fragment still carries the session for this tab
  }
}

/** Every kept session, newest first. */
export function keptSessions(): KeptSession[] {
  return readAll().sort((a, b) => b.savedAt - a.savedAt);
}

/** Keeps (or refreshes) a session. */
export function keep(session: Omit<KeptSession, 'savedAt'>): void {
  const others = readAll().filter((s) => s.sessionId !== session.sessionId);
  writeAll([{ ...session, savedAt: Date.now() }, ...others]);
}

/** Forgets a session (deleted, or its token refused). */
export function forget(sessionId: string): void {
  writeAll(readAll().filter((s) => s.sessionId !== sessionId));
}

/** A kept session by id. */
export function kept(sessionId: string): KeptSession | undefined {
  return readAll().find((s) => s.sessionId === sessionId);
}

/** What the fragment asks for: `#/play/ID`, `#/preview/PATH` or nothing (the home page). */
export type Route = { page: 'home' } | { page: 'play'; sessionId: string; token?: string } | { page: 'preview'; path?: string };

/** Reads the URL fragment. A `t=TOKEN` in a play fragment (a shared link) is kept and removed. */
export function route(hash: string = location.hash): Route {
  const body = hash.replace(/^#\/?/, '');
  const [path, query = ''] = body.split('?');
  const parts = path.split('/').map((p) => decodeURIComponent(p));
  if (parts[0] === 'play' && parts[1]) {
    const token = new URLSearchParams(query).get('t') ?? undefined;
    return { page: 'play', sessionId: parts[1], token };
  }
  if (parts[0] === 'preview') return { page: 'preview', path: parts.slice(1).join('/') || undefined };
  return { page: 'home' };
}

/** Points this tab at a page. */
export function go(hash: string): void {
  if (location.hash !== hash) location.hash = hash;
}
