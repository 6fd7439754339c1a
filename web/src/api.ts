// The server's API as the page calls it: one function per route, problems turned into ApiError,
// and idempotency keys made by the caller (one per intended action, never per click: W2).
import type {
  Applied,
  Diagnostic,
  DocumentListed,
  Problem,
  SessionCreated,
  SessionShown,
  TraceRecord,
} from './types';

/** A request the server answered with a problem (or that never reached it). */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(status: number, problem: Problem) {
    super(problem.detail || problem.title || `the server answered ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** A fresh idempotency key: 128 random bits in hex (crypto.getRandomValues works on plain HTTP too). */
export function freshKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return 'web-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function call<T>(path: string, init: RequestInit = {}, token?: string): Promise<T> {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (error) {
    throw new ApiError(0, { title: 'The server could not be reached', detail: String(error) });
  }
  const text = await response.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!response.ok) {
    const problem: Problem = typeof body === 'object' && body ? (body as Problem) : { detail: String(body ?? '') };
    throw new ApiError(response.status, problem);
  }
  return body as T;
}

const json = (value: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(value),
});

/** `GET /v1/documents`. */
export async function listDocuments(): Promise<DocumentListed[]> {
  const answer = await call<{ documents: DocumentListed[] }>('/v1/documents');
  return answer.documents ?? [];
}

/** `POST /v1/documents?name=NAME`: upload a document's bytes. */
export function uploadDocument(
  name: string,
  bytes: ArrayBuffer | string,
): Promise<{ documentId: string; kind: string; diagnostics: Diagnostic[] }> {
  return call(`/v1/documents?name=${encodeURIComponent(name)}`, { method: 'POST', body: bytes });
}

/** `POST /v1/sessions`: a new session of a document, at its entry or (with `start`) at an anchor. */
export function createSession(documentId: string, extra: Record<string, unknown> = {}): Promise<SessionCreated> {
  return call('/v1/sessions', json({ documentId, ...extra }));
}

/** `GET /v1/sessions/{id}?after=N`: the view and the transcript lines after N. */
export function showSession(id: string, token: string, after: number): Promise<SessionShown> {
  return call(`/v1/sessions/${encodeURIComponent(id)}?after=${after}`, {}, token);
}

/** A move's request: JSON `body` under `key`, and `If-Match` when the view's `version` is given. */
function move(body: unknown, key: string, version?: number): RequestInit {
  const init = json(body);
  const headers = init.headers as Record<string, string>;
  headers['Idempotency-Key'] = key;
  // Chosen on this version: a session that has moved since answers 412 and executes nothing (S29).
  if (version !== undefined) headers['If-Match'] = `"${version}"`;
  return init;
}

/** `POST /v1/sessions/{id}/apply` under `key`, chosen on the view of `version` when given. */
export function apply(id: string, token: string, actionId: string, key: string, version?: number): Promise<Applied> {
  return call(`/v1/sessions/${encodeURIComponent(id)}/apply`, move({ actionId }, key, version), token);
}

/** `POST /v1/sessions/{id}/input` under `key`, chosen on the view of `version` when given. */
export function input(
  id: string,
  token: string,
  questionId: string,
  text: string,
  key: string,
  version?: number,
): Promise<Applied> {
  return call(`/v1/sessions/${encodeURIComponent(id)}/input`, move({ questionId, text }, key, version), token);
}

/** `GET /v1/sessions/{id}/snapshot`: the session as plain data, as text (for a download). */
export async function snapshot(id: string, token: string): Promise<string> {
  const value = await call<unknown>(`/v1/sessions/${encodeURIComponent(id)}/snapshot`, {}, token);
  return JSON.stringify(value, null, 2);
}

/** `GET /v1/sessions/{id}/trace?after=SEQ` as JSON lines (the catch-up behind the live stream). */
export async function traceLines(id: string, token: string, after: number): Promise<TraceRecord[]> {
  const text = await call<unknown>(
    `/v1/sessions/${encodeURIComponent(id)}/trace?after=${after}`,
    { headers: { Accept: 'application/x-ndjson' } },
    token,
  );
  if (typeof text !== 'string') return text ? [text as TraceRecord] : [];
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as TraceRecord);
}

/** A document's graph as `GET /v1/documents/{id}/graph` answers JSON: the DOT and each node's id in it. */
export interface Graph {
  format: string;
  graph: string;
  nodes: { index: number; id: string; anchor?: string }[];
}

/** `GET /v1/documents/{id}/graph?format=dot` as JSON (the drawing and its node ids). */
export function documentGraph(documentId: string): Promise<Graph> {
  return call(`/v1/documents/${encodeURIComponent(documentId)}/graph?format=dot`);
}

/** The server's words for a problem, for a person. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return String(error);
}

export { call };
