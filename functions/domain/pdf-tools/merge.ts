import { addInput, type AssemblyReport, finishAssembly, startAssembly } from "#domain/pdf-tools/assemble.ts";
import { parsePageRanges } from "#domain/pdf-tools/page-ranges.ts";
import { openSource, resolvePdfInput, type ToolDependencies } from "#domain/pdf-tools/source.ts";
import { type PdfToolLimits, tooManyPagesOut } from "#domain/pdf-tools/tool-limits.ts";
import type { resolveDocument } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** MergeItem is one input of a merge: the document (its own password when encrypted), the pages taken (all by default), the title of its bookmark. */
export interface MergeItem {
  document: Parameters<typeof resolveDocument>[0] & { password?: string | undefined };
  pages?: string | undefined;
  title?: string | undefined;
}

/** ToolResult is a tool's PDF and what it did beyond the operation: signatures removed, names changed. */
export interface ToolResult {
  pdf: Uint8Array;
  pageCount: number;
  dropped: string[];
  report: AssemblyReport;
}

/**
 * mergeDocuments joins the inputs in order (POST /v1/merge): each resolved (a DOCX converted),
 * read once, guarded and copied before the next is read, so one input's bytes are held at a time
 * besides the output. Each input's bookmarks go under one bookmark named after it (its `title`,
 * else "Document N"); form fields and named destinations of later inputs are renamed on collision.
 */
export async function mergeDocuments(
  items: MergeItem[],
  options: { dropSignatures?: boolean | undefined },
  deps: ToolDependencies & { tools: PdfToolLimits },
): Promise<ToolResult> {
  const { tools } = deps;
  if (items.length < 2 || items.length > tools.maxMergeInputs) {
    throw new SignetError("VALIDATION_ERROR", `documents: give between 2 and ${tools.maxMergeInputs} documents to merge (got ${items.length}).`, {
      details: [{ field: "documents", issue: `2 to ${tools.maxMergeInputs} items` }],
    });
  }
  const state = startAssembly();
  const dropped: string[] = [];
  let totalBytes = 0;
  let pageCount = 0;
  for (const [index, item] of items.entries()) {
    const field = `documents.${index}.document`;
    const { bytes } = await resolvePdfInput(item.document, deps);
    totalBytes += bytes.length;
    if (totalBytes > tools.maxMergeTotalBytes) {
      throw new SignetError(
        "PAYLOAD_TOO_LARGE",
        `The documents to merge are larger than ${formatBytes(tools.maxMergeTotalBytes)} together (SIGNET_MERGE_MAX_TOTAL_BYTES); merge fewer at a time.`,
        {
          details: [{ field, issue: `passes ${formatBytes(tools.maxMergeTotalBytes)} together` }],
        },
      );
    }
    const source = await openSource(bytes, { field, dropSignatures: options.dropSignatures, maxPages: tools.maxPdfPages, password: item.document.password });
    const pagesField = `documents.${index}.pages`;
    const indexes =
      item.pages === undefined ? [...Array(source.pageCount).keys()] : parsePageRanges(item.pages, source.pageCount, pagesField, tools.maxPdfPages);
    pageCount += indexes.length;
    if (pageCount > tools.maxPdfPages) throw tooManyPagesOut(pageCount, tools.maxPdfPages, pagesField);
    dropped.push(...source.dropped.map((name) => `${index + 1}:${name}`));
    await addInput(state, { pdf: source.pdf, pages: indexes.map((page) => ({ index: page, rotate: 0 })), title: item.title ?? `Document ${index + 1}` });
  }
  return { pdf: await finishAssembly(state), pageCount, dropped, report: state.report };
}
