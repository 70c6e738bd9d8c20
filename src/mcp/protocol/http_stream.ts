/**
 * One open `text/event-stream` response body of the Streamable HTTP transport, with a bounded queue: a
 * client that opens a stream and never reads it would otherwise pin every message sent on it (and every
 * keepalive) in memory for as long as the connection lives. Once more than the cap waits unsent, the
 * stream is closed (its queue dropped) and the messages go elsewhere or are kept, bounded, by the session.
 *
 * @module
 */

/** Bytes an event stream may hold unsent (the client not reading) before it is closed. */
export const DEFAULT_STREAM_QUEUE_BYTES = 1024 * 1024;

/** A comment line sent on open event streams this often, so proxies and dead peers are noticed. */
const KEEPALIVE_MS = 25_000;

const encoder = new TextEncoder();

/** An open `text/event-stream` response body. */
export class EventStream {
  /** The response to hand to the HTTP server. */
  readonly response: Response;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  readonly #onClose: (why: "ended" | "not_reading") => void;
  readonly #maxQueueBytes: number;

  /**
   * `onClose` runs once when the stream ends: closed by us or the client ("ended"), or dropped because
   * more than `maxQueueBytes` waited unread ("not_reading").
   */
  constructor(
    headers: Headers,
    onClose: (why: "ended" | "not_reading") => void,
    maxQueueBytes = DEFAULT_STREAM_QUEUE_BYTES,
  ) {
    this.#onClose = onClose;
    this.#maxQueueBytes = maxQueueBytes;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#finish("ended"), // the client went away
      },
      // The queue is measured in bytes, so desiredSize says how much more may wait unread.
      { highWaterMark: maxQueueBytes, size: (chunk) => chunk.byteLength },
    );
    headers.set("content-type", "text/event-stream");
    headers.set("cache-control", "no-cache, no-transform");
    this.response = new Response(body, { status: 200, headers });
    this.#keepalive = setInterval(() => this.#write(": keepalive\n\n"), KEEPALIVE_MS);
  }

  /** Whether the stream has ended (it carries nothing more). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Send one JSON-RPC message as a `message` event; false when the stream is gone (or just dropped). */
  send(json: string): boolean {
    return this.#write(`event: message\ndata: ${json}\n\n`);
  }

  /**
   * Send a message only if it fits the queue now; false (the stream kept) otherwise. For messages that
   * waited for a stream: a fresh stream is not dropped for a backlog its client could not yet read.
   */
  offer(json: string): boolean {
    if (this.#closed) return false;
    const room = this.#controller.desiredSize ?? 0;
    const size = encoder.encode(json).length + 22;
    if (room < this.#maxQueueBytes && size > room) return false;
    return this.send(json);
  }

  /** End the stream normally (what was queued is still delivered). */
  close(): void {
    if (this.#closed) return;
    try {
      this.#controller.close();
    } catch {
      // already errored
    }
    this.#finish("ended");
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    const bytes = encoder.encode(text);
    const room = this.#controller.desiredSize ?? 0;
    // One message always fits an empty queue (a tool's answer may be larger than the cap); behind
    // unread bytes, whatever would pass the cap means the client is not reading.
    if (room < this.#maxQueueBytes && bytes.length > room) {
      // The client is not reading: erroring the body drops its queue and aborts the connection.
      try {
        this.#controller.error(new Error("the client does not read its event stream"));
      } catch {
        // already errored
      }
      this.#finish("not_reading");
      return false;
    }
    try {
      this.#controller.enqueue(bytes);
      return true;
    } catch {
      this.#finish("ended");
      return false;
    }
  }

  #finish(why: "ended" | "not_reading"): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepalive);
    this.#onClose(why);
  }
}

/** What a {@link PostReply} needs from the request it answers. */
export interface PostReplyInit {
  /** The response's headers (CORS, a session id); the content type is set here. */
  headers: Headers;
  /** Whether the client accepts `text/event-stream`. */
  takesSse: boolean;
  /** Hands the HTTP response over (once). */
  resolve(response: Response): void;
  /** The status of a JSON answer. */
  status(json: string): number;
  /** Open the event stream on `headers` (with whatever the caller attaches to it). */
  openStream(): EventStream;
  /** A message came after the JSON answer: it belongs to no response any more. */
  dropped(): void;
}

/**
 * How the messages of one POST go out, in both eras: the first message that is not a notification is
 * the JSON answer; a notification before it opens an event stream (when the client takes one) that
 * carries everything up to and including the answer; a client that takes only JSON gets no
 * notifications.
 */
export class PostReply {
  #stream: EventStream | null = null;
  #answered = false;
  readonly #init: PostReplyInit;

  constructor(init: PostReplyInit) {
    this.#init = init;
  }

  /** Whether a response (JSON or a stream) has been handed over. */
  get answered(): boolean {
    return this.#answered;
  }

  /** The event stream, once one is open. */
  get stream(): EventStream | null {
    return this.#stream;
  }

  /** Send one message of this request. */
  send(json: string): void {
    const init = this.#init;
    const isNotification = json.startsWith('{"jsonrpc":"2.0","method"');
    if (this.#stream !== null) {
      this.#stream.send(json);
      if (!isNotification) this.#stream.close();
    } else if (this.#answered) {
      init.dropped();
    } else if (!isNotification) {
      this.#answered = true;
      init.headers.set("content-type", "application/json");
      init.resolve(new Response(json, { status: init.status(json), headers: init.headers }));
    } else if (init.takesSse) {
      const opened = init.openStream();
      this.#stream = opened;
      this.#answered = true;
      init.resolve(opened.response);
      opened.send(json);
    }
  }
}
