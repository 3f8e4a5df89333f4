/**
 * When the local server collects garbage itself. A request whose body and answer together reach
 * 4 MB leaves tens of MB of buffers and external strings that V8 collects only several large
 * requests later, when its external-memory heuristics fire: bench:http measured the server's peak
 * RSS at 18x a 10 MB document that way. After such a request, once external memory has grown
 * 48 MB since the last collection, a full collection runs in a task of its own. For the freed
 * memory to leave the process, `npm start` also pins glibc's mmap threshold at 128 KB
 * (MALLOC_MMAP_THRESHOLD_; by default glibc raises it to the largest block freed, and 10 MB blocks
 * then stay in its heap). Together about 13x, for some CPU (memory mapped and zeroed again);
 * collecting after every large request held about 9x but doubled the time of a 10 MB signing.
 */
export const LARGE_EXCHANGE_BYTES = 4 * 1024 * 1024;
export const EXTERNAL_GROWTH_BYTES = 48 * 1024 * 1024;

/**
 * memoryCollector returns what to call with each answered request's size. Without gc (a process
 * not started with --expose-gc, such as the tests' servers) it does nothing.
 */
export function memoryCollector(
  gc: (() => void) | undefined,
  external: () => number,
  schedule: (task: () => void) => void = setImmediate,
): (exchangedBytes: number) => void {
  let externalAfterCollection = 0;
  let pending = false;
  return (exchangedBytes) => {
    if (!gc || pending || exchangedBytes < LARGE_EXCHANGE_BYTES) return;
    pending = true;
    schedule(() => {
      pending = false;
      if (external() - externalAfterCollection < EXTERNAL_GROWTH_BYTES) return;
      gc();
      externalAfterCollection = external();
    });
  };
}
