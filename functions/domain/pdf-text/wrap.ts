// Line breaking for the certificate page: at spaces, inside a word only when the word alone is too wide.

/**
 * wrapText breaks a paragraph into lines no wider than maxWidth: at spaces when it can, inside a
 * word when the word alone is too wide (user agents, digests, CJK text without spaces).
 */
export function wrapText(text: string, maxWidth: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    // Most values fit on one line: one measurement instead of one per word.
    if (measure(paragraph.trimEnd()) <= maxWidth) {
      lines.push(paragraph.trimEnd());
      continue;
    }
    let line = "";
    for (const word of paragraph.split(/(?<=\s)/)) {
      if (measure(line + word.trimEnd()) <= maxWidth) {
        line += word;
        continue;
      }
      if (line.trim()) lines.push(line.trimEnd());
      line = "";
      if (measure(word.trimEnd()) <= maxWidth) {
        line = word;
        continue;
      }
      for (const char of word) {
        if (line && measure(line + char) > maxWidth) {
          lines.push(line);
          line = "";
        }
        line += char;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
