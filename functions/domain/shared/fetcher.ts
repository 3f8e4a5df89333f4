/** FetchedResource is what a URL yielded: its bytes and the declared media type. */
export interface FetchedResource {
  bytes: Buffer;
  contentType?: string;
  /** The last path segment of the final URL, when it looks like a file name. */
  fileName?: string;
}

/**
 * Fetcher retrieves a document or image by URL. Implementations must refuse private addresses,
 * cap size and time, and raise SignetError FETCH_FAILED / PAYLOAD_TOO_LARGE / VALIDATION_ERROR.
 */
export interface Fetcher {
  fetch(url: string, options: { maxBytes: number; what: string }): Promise<FetchedResource>;
}
