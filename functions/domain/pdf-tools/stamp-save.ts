// Saving what a PDF tool changed: an incremental update that keeps every earlier byte (what a
// signature permits), or the whole document written again (unsigned input, or signatures dropped).
import type { PDF } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";

/** ToolResult is a PDF tool's output and the signatures it removed (dropSignatures). */
export interface ToolResult {
  pdf: Buffer;
  droppedSignatures: string[];
}

/**
 * saveUpdate writes the document: with `incremental`, appended to `input` (checked: the input is
 * a prefix of the output, else signatures over it would break); otherwise whole. Fonts are subset.
 */
export async function saveUpdate(pdf: PDF, input: Buffer, options: { incremental: boolean }): Promise<Pick<ToolResult, "pdf">> {
  if (options.incremental) {
    const blocker = pdf.canSaveIncrementally();
    if (blocker) throw new SignetError("INVALID_DOCUMENT", `The PDF cannot take an incremental update (${blocker}); re-save it, then send it again.`);
  }
  const saved = await pdf.save({ incremental: options.incremental, subsetFonts: true, compressStreams: true });
  const output = Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
  if (options.incremental && (output.length < input.length || output.compare(input, 0, input.length, 0, input.length) !== 0)) {
    throw new Error("the PDF writer did not keep the input as a prefix of the output");
  }
  return { pdf: output };
}
