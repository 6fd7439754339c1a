// The live trace: server-sent events read over fetch (EventSource cannot send the bearer token),
// resumed from the last sequence seen, so nothing is missed or repeated across reconnects (W6).
import type { TraceRecord } from './types';

/** What a trace follower reports. */
export interface TraceSink {
  /** A record, in order; its sequence is always one more than the last one delivered. */
  record(record: TraceRecord): void;
  /** The stream's state changed (for the page's status line). */
  state(connected: boolean): void;
}

/** One server-sent event as parsed from the stream. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Splits a server-sent-event stream's text into events; returns the events and the unparsed rest. */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  const normalised = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length || id !== undefined) events.push({ id, event, data: data.join('\n') });
  }
  return { events, rest };
}

/**
 * Follows a session's trace from `after` until `stop()` is called. Records arrive in order with no
 * gap: a record whose sequence is not the next one is not delivered; the stream is reopened from
 * the last delivered sequence instead (the server's JSON lines fill the gap).
 */
export function followTrace(
  sessionId: string,
  token: string,
  after: number,
  sink: TraceSink,
): { stop(): void; last(): number } {
  let last = after;
  let stopped = false;
  let controller: AbortController | null = null;
  let delay = 250;

  const deliver = (record: TraceRecord): boolean => {
    if (record.sequence <= last) return true; // already seen: a repeat is dropped
    if (record.sequence !== last + 1) return false; // a gap: reconnect from `last`
    last = record.sequence;
    sink.record(record);
    return true;
  };

  const run = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await fetch(`/v1/sessions/${encodeURIComponent(sessionId)}/trace?after=${last}`, {
          headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` },
          signal: controller.signal,
        });
        if (response.status === 401 || response.status === 404) {
          sink.state(false);
          return; // the session is gone, or not this token's: nothing to follow
        }
        if (!response.ok || !response.body) throw new Error(`trace: ${response.status}`);
        sink.state(true);
        delay = 250;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        let gap = false;
        while (!stopped && !gap) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          const parsed = parseSse(buffer);
          buffer = parsed.rest;
          for (const event of parsed.events) {
            if (event.event !== 'trace' || !event.data) continue;
            let record: TraceRecord;
            try {
              record = JSON.parse(event.data) as TraceRecord;
            } catch {
              continue;
            }
            if (!deliver(record)) {
              gap = true;
              break;
            }
          }
        }
        if (gap) controller.abort();
      } catch {
        // a dropped connection: reconnect below
      }
      sink.state(false);
      if (stopped) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  };
  void run();
  return {
    stop() {
      stopped = true;
      controller?.abort();
    },
    last: () => last,
  };
}
