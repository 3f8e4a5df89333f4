import * as z from "zod";
import { formatsTo, SOURCE_FORMATS, TARGET_FORMATS } from "#domain/documents/formats.ts";
import { defineRoute } from "#http/contract.ts";

/** convertRoute: POST /v1/convert?from=docx[&to=pdf][&pdfa=2b], multipart with a `file` part. */
export const convertRoute = defineRoute({
  name: "convert",
  async: true,
  method: "POST",
  path: "/v1/convert",
  auth: true,
  idempotent: true,
  streaming: true, // the converted file goes out as raw bytes, beyond Lambda's 6 MB buffered limit
  tag: "Convert",
  summary: "Convert an office document",
  description: [
    "Converts the uploaded file with LibreOffice and answers the file itself, with `Content-Disposition: attachment` naming the",
    "uploaded file with the new extension. Supported: `from=docx` to PDF; `doc`, `odt`, `rtf` to PDF or DOCX; `md` and `html`",
    "to DOCX or PDF (Markdown is rendered first; HTML is sanitised: no scripts, no remote images or styles); spreadsheets",
    "(`xlsx`, `xls`, `ods`, `csv`: every sheet, with the print areas and page setup the file carries; CSV is read as UTF-8 with",
    "commas) and presentations (`pptx`, `ppt`, `odp`: one page per slide) to PDF, at most SIGNET_MAX_CONVERT_PAGES pages",
    "(1,000; more is 413). `pdfa=2b` exports",
    "PDF/A-2b and needs `to=pdf`. With `to=docx` the Content-Type is",
    "`application/vnd.openxmlformats-officedocument.wordprocessingml.document`. The file is checked by content before conversion:",
    "a DOCX must be a zip package with word/document.xml, a .doc an OLE file with a WordDocument stream, an .odt an",
    "OpenDocument text, an XLSX a zip with xl/workbook.xml, a PPTX one with ppt/presentation.xml, an .xls or .ppt an OLE file with",
    "a Workbook or PowerPoint Document stream; password-protected files are refused. Busy servers answer 429 with Retry-After.",
    "On AWS, after weeks without conversions the converter wakes up first: that request answers 503 with `Retry-After: 60`.",
    "On AWS a multipart body carries at most about 4.5 MB; larger files (up to 25 MB) go through POST /v1/uploads and `?upload=`.",
  ].join(" "),
  query: z.strictObject({
    from: z.enum(SOURCE_FORMATS).meta({ description: "Format of the uploaded file (required); checked against the bytes." }),
    to: z
      .enum(TARGET_FORMATS)
      .default("pdf")
      .meta({ description: `Output format; docx only from ${formatsTo("docx").join(", ")}.` }),
    pdfa: z.enum(["2b"]).optional().meta({ description: "Export PDF/A-2b (to=pdf only)." }),
    upload: z.string().min(1).optional().meta({
      description:
        "A reference from POST /v1/uploads: convert that uploaded file instead of a multipart body (send no body). Use it for files above about 4.5 MB on AWS.",
    }),
    callbackUrl: z.string().min(1).optional().meta({
      description:
        "With `Prefer: respond-async` only (400 without it): the https:// URL the job's signed webhook goes to, checked as the JSON routes' `callbackUrl` member is (a public host; 400 naming `query.callbackUrl` otherwise).",
    }),
  }),
  body: { kind: "multipart", description: "multipart/form-data with exactly one file part named `file` (no other parts); no body with `?upload=`." },
  success: { description: "The converted file (PDF, or DOCX with to=docx).", contentType: "application/pdf" },
  errors: [
    "INVALID_DOCUMENT",
    "ENCRYPTED_DOCUMENT",
    "PAYLOAD_TOO_LARGE",
    "IMAGE_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "CONVERSION_TIMEOUT",
    "CONVERSION_FAILED",
    "RATE_LIMIT_ERROR",
    "SERVICE_UNAVAILABLE",
  ],
});
