// The wire shapes the page reads. The server and the protocol crate own them
// (docs/schema/view.schema.json, docs/schema/trace.schema.json, the server's OpenAPI file);
// these are the page's reading of them, nothing more.

/** One thing that may be applied now: `next`, `choose:N`, `undo`, `jump:ANCHOR`, ... */
export interface Action {
  id: string;
  label: string;
}

/** An option a menu offered that may not be taken. */
export interface Unavailable {
  position: number;
  label: string;
  why: string;
}

/** A question waiting for free text. */
export interface PendingQuestion {
  questionId: string;
  text: string;
}

/** The control view (`describe`). */
export interface View {
  status: 'active' | 'done' | 'error' | 'stopped';
  atRest: boolean;
  stateId: string;
  description: string;
  pendingQuestions: PendingQuestion[];
  lastError?: string;
  actions: Action[];
  unavailable?: Unavailable[];
}

/** A fragment of speech, as the playbook spells it (kind text, styled, link, image, ...). */
export interface Fragment {
  kind: string;
  text?: string;
  style?: string;
  children?: Fragment[];
  target?: string;
  label?: Fragment[];
  source?: string;
  alt?: Fragment[];
  key?: string;
  action?: string;
  name?: string;
  args?: string[];
}

/** One event an engine reported (a receipt's events, a transcript line). */
export interface Reported {
  type: string;
  speaker?: string;
  text?: string;
  /** Styled speech, when the server sends it (see docs/design/web.md W4). */
  speech?: Fragment[];
}

/** A transcript line: a reported event and its number in the session's transcript. */
export interface TranscriptLine extends Reported {
  n: number;
}

/** What `apply` and `input` did. */
export type Receipt =
  | { disposition: 'rejected'; reason: string }
  | { disposition: 'executed'; outcome: 'awaiting' | 'ended' | 'stopped'; events: Reported[] }
  | { disposition: 'failed'; error: string };

/** `GET /v1/sessions/{id}`. */
export interface SessionShown {
  sessionId: string;
  documentId: string;
  version: number;
  view: View;
  transcript: TranscriptLine[];
}

/** `POST /v1/sessions`. */
export interface SessionCreated {
  sessionId: string;
  token: string;
  view: View;
  version: number;
}

/** `200` of apply and input. */
export interface Applied {
  receipt: Receipt;
  view: View;
  version: number;
}

/** A compiler diagnostic as the API spells it. */
export interface Diagnostic {
  file?: string;
  line?: number;
  column?: number;
  code?: string;
  severity?: string;
  message?: string;
  /** Byte offsets into the source, when the server sends them (W9). */
  span?: { start: number; end: number };
  /** The span's last line and column, when the server sends them (W9). */
  endLine?: number;
  endColumn?: number;
}

/** A document the server holds. */
export interface DocumentListed {
  documentId: string;
  kind: string;
  name: string;
}

/** One trace record (H6). */
export interface TraceRecord {
  schemaVersion: number;
  sessionId: string;
  sequence: number;
  timestamp: number;
  type: string;
  callId?: string;
  /** A record of the engine's own trace (H48): its type is the engine's (an agent's schema-2 types). */
  engine?: boolean;
  payload: Record<string, unknown>;
}

/** An RFC 9457 problem, with the members the server adds. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  receipt?: Receipt;
  view?: View;
  version?: number;
  diagnostics?: Diagnostic[];
}
