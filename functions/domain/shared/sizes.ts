const KB = 1024;
const MB = 1024 * 1024;

/** formatBytes words a size limit for messages: "25 MB", "1.5 MB", "256 KB", "100 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${Number((bytes / MB).toFixed(1))} MB`;
  if (bytes >= KB) return `${Number((bytes / KB).toFixed(1))} KB`;
  return `${bytes} bytes`;
}
