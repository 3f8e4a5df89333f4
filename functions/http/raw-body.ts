/**
 * The local server already holds a request's bytes; encoding them to base64 for the event and
 * decoding them again in the pipeline only burns time and memory. It attaches the bytes
 * to the event here, the pipeline takes them from here, and event.body (what API Gateway would
 * send, base64) is computed only if some code reads it. On Lambda nothing is attached.
 */
const rawBodies = new WeakMap<object, Buffer>();

/** attachRawBody hands the pipeline the request bytes of an event built by the local server. */
export function attachRawBody(event: object, bytes: Buffer): void {
  rawBodies.set(event, bytes);
}

/** rawBodyOf is the bytes attached to an event, if any. */
export function rawBodyOf(event: object): Buffer | undefined {
  return rawBodies.get(event);
}
