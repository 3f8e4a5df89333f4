import type { ErrorCode, ErrorDetail } from "#domain/shared/errors.ts";
import { denialMessages } from "#domain/keys/key-service.ts";
import type { RouteName } from "#http/routes.ts";

/** NamedExample is one entry of an OpenAPI `examples` map. */
export interface NamedExample {
  summary: string;
  description?: string;
  value: unknown;
}

/** OperationExamples are the documentation-only parts of one route, keyed by route name below. */
export interface OperationExamples {
  /** Request body examples (JSON routes). */
  request?: Record<string, NamedExample>;
  /** Success body examples. */
  success?: Record<string, NamedExample>;
  /** Success headers beyond X-Request-Id. */
  successHeaders?: Record<string, { description: string; example: string }>;
  /** Further success content types (binary answers), with what they carry. */
  alternativeContent?: Record<string, string>;
  /** Error examples specific to this route, replacing the generic one for the code. */
  errors?: Partial<Record<ErrorCode, ErrorExample>>;
}

/** ErrorExample is the message (and details) an error example shows. */
export interface ErrorExample {
  message: string;
  details?: ErrorDetail[];
}

/**
 * minimalPdf is a valid one-page PDF (qpdf --check clean, 635 bytes) built here so that the sign
 * and verify examples work as they stand in the reference page's try-it console.
 */
function minimalPdf(): string {
  const content = "BT /F1 20 Tf 72 760 Td (Example contract) Tj 0 -30 Td /F1 12 Tf (Signed with Signet.) Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(pdf.length);
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1").toString("base64");
}

/** EXAMPLE_PDF_BASE64 is the example PDF, plain base64. */
export const EXAMPLE_PDF_BASE64 = minimalPdf();

// A 1x1 transparent PNG: the smallest picture every image field accepts.
const PIXEL_PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const REQUEST_ID = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef";
const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const auditTrail = [
  { type: "ready", timestamp: "2026-11-22T09:55:00Z", data: { page: 1 } },
  { type: "scroll", timestamp: "2026-11-22T09:56:10Z", data: { percent: 100 } },
  { type: "field_change", timestamp: "2026-11-22T09:57:00Z", data: { field: "name", value: "Ada Lovelace" } },
  { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
];
const signer = { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0 (X11; Linux x86_64)" };

/**
 * genericErrorExamples is what each error code's example says unless a route has its own: a
 * realistic message telling the caller what to fix.
 */
export const genericErrorExamples: Record<ErrorCode, ErrorExample> = {
  VALIDATION_ERROR: {
    message: "The request body does not match the schema; see details.",
    details: [
      { field: "signer.email", issue: "Invalid email address" },
      { field: "body", issue: "unknown member(s): signature" },
    ],
  },
  AUTHENTICATION_ERROR: { message: denialMessages.missing },
  REQUEST_REJECTED: { message: "Forbidden" },
  NOT_FOUND: { message: "There is no route /v1/sing. See /openapi.json for the API." },
  METHOD_NOT_ALLOWED: { message: "/v1/sign does not answer GET; use POST." },
  PAYLOAD_TOO_LARGE: { message: "The document is 31457280 bytes once decoded; the limit is 26214400. Send a smaller file." },
  IMAGE_TOO_LARGE: {
    message: "The image word/media/image1.png is 60000 x 60000 pixels (3600 megapixels); the limit is 100 megapixels per image. Scale it down and try again.",
    details: [{ field: "document", issue: "word/media/image1.png: 60000 x 60000 px, over 100000000 pixels" }],
  },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Send the body as JSON with "Content-Type: application/json" (got "text/plain").' },
  INVALID_DOCUMENT: { message: 'document.base64 is neither a PDF nor a DOCX (it starts with "<htm"). Send the file\'s bytes, base64-encoded.' },
  ENCRYPTED_DOCUMENT: {
    message: "The PDF is password-protected: send its password in document.password (the user or the owner password).",
    details: [{ field: "document.password", issue: "required for this PDF" }],
  },
  WOULD_INVALIDATE_SIGNATURES: {
    message:
      'The PDF holds 1 signature (Signature1) that this change would invalidate; send "dropSignatures": true to remove them, or ask for the change the signatures permit.',
    details: [{ field: "document", issue: "signed: Signature1" }],
  },
  WRONG_PASSWORD: {
    message: "The password in document.password opens neither as the PDF's user nor as its owner password.",
    details: [{ field: "document.password", issue: "does not open the PDF" }],
  },
  FIELD_NOT_FOUND: {
    message: "2 fields match nothing in the template; see details.",
    details: [
      { field: "fields.0.id", issue: 'no content control or {{placeholder}} has the id "customer-nmae"' },
      { field: "fields.3.group", issue: 'no content control has the group "billing"' },
    ],
  },
  FIELD_TYPE_MISMATCH: {
    message: "A field's type does not fit the control it targets; see details.",
    details: [{ field: "fields.2", issue: 'a table cannot go into the inline control "items"; put the control around a table' }],
  },
  FIELD_READ_ONLY: {
    message: "These fields are read-only; leave them out: employer.id: the field is read-only.",
    details: [{ field: "fields.0.value", issue: "employer.id: the field is read-only" }],
  },
  INVALID_FIELD_VALUE: {
    message: 'These values do not fit their fields: country: "Atlantis" not among its options: "FR", "DE", "LU".',
    details: [{ field: "fields.1.value", issue: 'country: "Atlantis" not among its options: "FR", "DE", "LU"' }],
  },
  XFA_FORM: {
    message:
      "The PDF is a hybrid XFA form: XFA viewers show the XFA data, not the AcroForm values Signet writes. Send dropXfa: true to fill the AcroForm and remove the XFA.",
    details: [{ field: "dropXfa", issue: "must be true to fill a hybrid XFA form" }],
  },
  FIELD_ALREADY_SIGNED: {
    message: 'The signature field "Employee signature" already holds a signature; name an empty signature field, or give page and rect for a new one.',
    details: [{ field: "signatureField.name", issue: "already signed" }],
  },
  FIELD_PLACEMENT: {
    message:
      "signatureField.rect [400, 700, 700, 760] is not inside page 1 (0 0 612 792); give a rectangle within the page, in points from its lower left corner.",
    details: [{ field: "signatureField.rect", issue: "outside page 1 (0 0 612 792)" }],
  },
  CERTIFICATION_NOT_FIRST: {
    message:
      "The document already holds a signature: a certification (certify) must be its first signature. Sign it without certify, or certify the document before anyone signs it.",
    details: [{ field: "certify", issue: "only on a document without signatures" }],
  },
  DATA_MISSING: {
    message: "2 tag use(s) of the template have no value in data; add the paths in details (send false or [] to leave a section out).",
    details: [
      { field: "data.customer.address.city", issue: "has no value in data" },
      { field: "data.items[1].qty", issue: "has no value in data" },
    ],
  },
  INVALID_IMAGE: {
    message:
      "fields.1 must be a PNG, JPEG, GIF, WebP or SVG image given as a base64 data URI or an https URL (the bytes are not a PNG, JPEG, GIF, WebP or SVG image).",
  },
  LEVEL_UNAVAILABLE: { message: 'Signature level B-T needs a timestamp authority, and none is configured: set SIGNET_TSA_URL, or ask for "level": "B-B".' },
  MISSING_SUBMIT_EVENT: { message: 'auditTrail has no event of type "submit"; add the event that records the signer\'s submission.' },
  INVALID_CODE: {
    message:
      "This code does not work for this address: it is wrong, expired, already used or replaced by a newer one, or was tried wrong too often. Type the code of the latest e-mail from the network you asked for it from, or request a new one. Request a new code with GET /v1/auth/register?email=....",
    details: [{ field: "query.code", issue: "not a working code for this address" }],
  },
  CODE_EXPIRED: { message: "The code has expired (codes last 15 minutes). Request a new code with GET /v1/auth/register?email=...." },
  IDEMPOTENCY_KEY_REUSED: {
    message: "This Idempotency-Key was used for a different request (method, path, query or body) in the last 24 hours; use a new key for a new request.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    message: "The first request with this Idempotency-Key is still being processed; retry after the seconds in Retry-After to get its answer.",
  },
  RATE_LIMIT_ERROR: { message: "Too many codes requested for this address; retry in 840 seconds." },
  INTERNAL_ERROR: { message: `Something went wrong on our side. Quote request id ${REQUEST_ID} when reporting it.` },
  FETCH_FAILED: { message: "document.url could not be fetched: the host resolves to a private address (10.0.0.5)." },
  EMAIL_FAILED: { message: "The code could not be e-mailed; check the address or retry later." },
  TSA_FAILED: { message: "The timestamp authority did not answer within 10 s; nothing was signed. Retry later." },
  SERVICE_UNAVAILABLE: { message: "API keys cannot be checked right now; retry in a moment." },
  CONVERSION_TIMEOUT: { message: "LibreOffice did not finish within 60 s; send a smaller or simpler document." },
  SYNC_TIMEOUT: {
    message:
      "The work did not finish within this server's synchronous budget of 25000 ms; send the request again with the header Prefer: respond-async and fetch the result from the job.",
  },
  REQUEST_TIMEOUT: { message: "The request body did not arrive within 60 s; send it in one go (the server stops waiting after SIGNET_REQUEST_TIMEOUT_MS)." },
  HEADERS_TOO_LARGE: { message: "The request headers are larger than the server accepts (16 KB); send fewer or shorter headers." },
  CONVERSION_FAILED: {
    message:
      "LibreOffice stopped with an error while converting this document. Open and save it again in a word processor, or remove unusual content, and retry.",
  },
};

/** operationExamples holds each route's examples, keyed by route name (functions/<name>.ts); `{}` where the contract's own examples suffice. */
export const operationExamples: Record<RouteName, OperationExamples> = {
  info: {
    success: {
      info: { summary: "Service information", value: { name: "Signet", version: "0.1.0", docs: "/docs", openapi: "/openapi.json", health: "/v1/health" } },
    },
  },
  health: {
    errors: {
      SERVICE_UNAVAILABLE: {
        message: "Not ready: libreoffice is down; see details.",
        details: [
          {
            field: "libreoffice",
            issue:
              "LibreOffice (soffice) was not found on PATH, in /opt or in /usr/lib/libreoffice: install it (apt-get install libreoffice-writer python3-uno) or set SIGNET_SOFFICE to its soffice binary",
          },
        ],
      },
    },
  },
  "auth-register": {
    errors: { RATE_LIMIT_ERROR: { message: "Too many codes requested for this address; retry in 840 seconds." } },
  },
  "auth-verify": {
    errors: {
      VALIDATION_ERROR: { message: "A query parameter is missing or invalid; see details.", details: [{ field: "query.code", issue: "required" }] },
    },
  },
  sign: {
    successHeaders: {
      "Signet-Input-Rewritten": {
        description:
          "Present when Signet rewrote an unsigned PDF once before signing it, and why: `repaired cross-reference` (readers repair such files; Signet signs the clean rewrite) or `hybrid cross-reference made plain` (strict validators refuse hybrid-reference files). The audit record holds both SHA-256s.",
        example: "repaired cross-reference",
      },
      "Signet-Notice": {
        description:
          "Present when the caller should know something about the signed file: a signed hybrid-reference file kept as it is (strict validators such as pyHanko will not evaluate its signatures), or a certificate page left out (the audit trail stays in the signature). Several notices are separated by `; `.",
        example: "hybrid-reference file kept as it is (it holds signatures): strict validators such as pyHanko will not evaluate its signatures",
      },
    },
    request: {
      pdfBase64: {
        summary: "Sign a PDF sent as base64",
        description: "A complete request that works as it stands: a one-page PDF, a signer and an audit trail ending in submit.",
        value: { document: { base64: EXAMPLE_PDF_BASE64 }, signer, auditTrail, eventId: "evt_123", metadata: { contract: "C-42", department: "Sales" } },
      },
      certifyVisible: {
        summary: "Certify a PDF (DocMDP P=2) with a visible signature in a new field",
        description:
          "A certification signature (later form filling and signatures keep it valid) drawn in a new field on page 1: the signer's name, the UTC signing time, reason and location. Works as it stands on the example page (A4-sized, so the rectangle is inside it); name an existing empty signature field with `signatureField: { name }` instead.",
        value: {
          document: { base64: EXAMPLE_PDF_BASE64 },
          signer,
          auditTrail,
          certify: { permissions: 2 },
          signatureField: { page: 1, rect: [360, 40, 560, 100], reason: "Approved", location: "London" },
        },
      },
      docxUrl: {
        summary: "Sign a DOCX fetched by URL",
        description: "DOCX input is converted to PDF first. URLs must be https and resolve to a public address.",
        value: {
          document: { url: "https://example.com/contract.docx" },
          signer: { name: "Ada Lovelace", email: "ada@example.com" },
          auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
        },
      },
      noCertificatePage: {
        summary: "Sign without the audit trail certificate page",
        value: {
          document: { base64: EXAMPLE_PDF_BASE64 },
          signer: { name: "Ada Lovelace", email: "ada@example.com" },
          auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
          certificate: { enabled: false },
        },
      },
    },
    success: {
      signed: {
        summary: "The signed PDF (shortened)",
        value: { document: { base64: "JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4K...", contentType: "application/pdf" } },
      },
    },
    errors: {
      VALIDATION_ERROR: {
        message: "The request body does not match the schema; see details.",
        details: [
          { field: "signer.name", issue: "Too small: expected string to have >=2 characters" },
          { field: "body", issue: "unknown member(s): signature" },
        ],
      },
    },
  },
  annotate: {
    request: {
      everyFieldType: {
        summary: "Fill every kind of field",
        description:
          "One field of each type: text by SuperDoc field id or Word Tag, a group filling several controls, an image and a signature picture, table rows appended to a table inside a control, and a checkbox.",
        value: {
          document: { url: "https://example.com/template.docx" },
          fields: [
            { id: "customer-name", type: "text", value: "Ada Lovelace\nAnalytical Engines Ltd", options: { keepTextNodeStyles: true } },
            { group: "company", type: "text", value: "Analytical Engines Ltd" },
            { id: "logo", type: "image", value: PIXEL_PNG, options: { dimensions: { width: 120 } } },
            { id: "signature", type: "signature", value: PIXEL_PNG, options: { dimensions: { width: "200", height: "60" } } },
            {
              id: "items",
              type: "table",
              value: [
                ["Widget", "2", "10.00"],
                ["Gadget", "1", "25.00"],
              ],
              options: { copyRowStyle: true },
            },
            { id: "agree", type: "checkbox", value: "true" },
            { id: "contractNo", type: "text", value: "C-42" },
          ],
        },
      },
      text: {
        summary: "Text",
        value: { document: { url: "https://example.com/template.docx" }, fields: [{ id: "customer-name", type: "text", value: "Ada Lovelace" }] },
      },
      group: {
        summary: "Text into a group",
        value: { document: { url: "https://example.com/template.docx" }, fields: [{ group: "customer-info", type: "text", value: "Ada Lovelace" }] },
      },
      image: {
        summary: "Image",
        value: {
          document: { url: "https://example.com/template.docx" },
          fields: [{ id: "logo", type: "image", value: "https://example.com/logo.png", options: { dimensions: { height: 48 } } }],
        },
      },
      signature: {
        summary: "Signature picture",
        value: { document: { url: "https://example.com/template.docx" }, fields: [{ id: "signature", type: "signature", value: PIXEL_PNG }] },
      },
      table: {
        summary: "Table rows",
        value: {
          document: { url: "https://example.com/template.docx" },
          fields: [{ id: "items", type: "table", value: [["Widget", "2", "10.00"]], options: { copyRowStyle: true } }],
        },
      },
      checkbox: {
        summary: "Checkbox",
        value: { document: { url: "https://example.com/template.docx" }, fields: [{ id: "agree", type: "checkbox", value: "true" }] },
      },
    },
    success: {
      docx: { summary: "to=docx (default)", value: { document: { base64: `data:${DOCX_TYPE};base64,UEsDBBQACAgIA...`, contentType: DOCX_TYPE } } },
      pdf: { summary: "to=pdf", value: { document: { base64: "data:application/pdf;base64,JVBERi0xLjcK...", contentType: "application/pdf" } } },
    },
    errors: {
      INVALID_DOCUMENT: { message: "The template is not a DOCX (a zip package with word/document.xml); annotate fills Word templates only." },
    },
  },
  "annotate-fields": {
    request: { template: { summary: "A template by URL", value: { document: { url: "https://example.com/template.docx" } } } },
    success: {
      fields: {
        summary: "Fields found",
        value: {
          fields: [
            { ids: ["customer-name", "12"], group: null, alias: "Customer name", kind: "text", location: { part: "word/document.xml", index: 0 } },
            { ids: ["items"], group: null, alias: null, kind: "table", location: { part: "word/document.xml", index: 1 } },
            { ids: ["agree"], group: null, alias: null, kind: "checkbox", location: { part: "word/document.xml", index: 2 } },
          ],
          placeholders: ["contractNo"],
          tags: [
            { name: "contractNo", kind: "value" },
            {
              name: "items",
              kind: "section",
              children: [
                { name: "name", kind: "value" },
                { name: "qty", kind: "value" },
              ],
            },
          ],
        },
      },
    },
  },
  convert: {
    successHeaders: {
      "Content-Disposition": {
        description: "The uploaded file's name with the new extension.",
        example: "attachment; filename=\"contract.pdf\"; filename*=UTF-8''contract.pdf",
      },
    },
    alternativeContent: { [DOCX_TYPE]: "With to=docx: the DOCX file." },
    errors: {
      VALIDATION_ERROR: {
        message: "A query parameter is missing or invalid; see details.",
        details: [{ field: "query.from", issue: 'Invalid option: expected one of "docx"|"doc"|"odt"|"rtf"|"md"|"html"' }],
      },
      UNSUPPORTED_MEDIA_TYPE: { message: 'Send the file as multipart/form-data with one part named "file" (got "application/json").' },
      INVALID_DOCUMENT: { message: "The file is not a DOCX (a zip package with word/document.xml); check from=." },
      RATE_LIMIT_ERROR: { message: "All converters are busy; retry in 5 seconds." },
    },
  },
  verify: {
    request: {
      base64: { summary: "A PDF sent as base64", value: { document: { base64: EXAMPLE_PDF_BASE64 } } },
      url: { summary: "A PDF fetched by URL", value: { document: { url: "https://example.com/signed.pdf" } } },
    },
    success: {
      signed: {
        summary: "One valid certification signature (DocMDP P=2) by this service, visible in its field",
        value: {
          valid: true,
          trusted: true,
          reason: "The signature is intact.",
          signatures: [
            {
              field: "Signature1",
              visible: true,
              subFilter: "ETSI.CAdES.detached",
              signerName: "Ada Lovelace",
              certificateSubject: "CN=Signet local signing,O=Signet",
              fingerprint: "3F:A1:0C:77:5B:E2:19:8D:4A:60:C3:9E:21:F4:0B:6D:88:2A:17:C5:E0:93:5D:BB:4F:12:A6:7E:09:C1:D8:33",
              signingTime: "2026-11-22T09:58:03.000Z",
              coversWholeDocument: true,
              integrity: "ok",
              trusted: true,
              modifiedAfter: false,
              modificationLevel: "none",
              docMdpPermission: 2,
              changesPermitted: true,
              level: "B-B",
              documentTimestamp: false,
            },
          ],
          signer: { name: "Ada Lovelace", email: "ada@example.com", certificateSubject: "CN=Signet local signing,O=Signet" },
          signers: [{ name: "Ada Lovelace", email: "ada@example.com", certificateSubject: "CN=Signet local signing,O=Signet" }],
          document: { pages: 2, sha256: "9f2c1e0b7d4a5c3e8f6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60" },
        },
      },
      borrowed: {
        summary: "A second signature dictionary borrowing the first one's signature value",
        value: {
          valid: false,
          trusted: false,
          reason:
            'Signature "Approval" is broken: the signature dictionary (object 14 0) is not inside the bytes its /ByteRange covers, so the signature value is not its own.',
          signatures: [
            {
              field: "Signature1",
              visible: false,
              subFilter: "ETSI.CAdES.detached",
              signerName: "Ada Lovelace",
              certificateSubject: "CN=Signet local signing,O=Signet",
              fingerprint: "3F:A1:0C:77:5B:E2:19:8D:4A:60:C3:9E:21:F4:0B:6D:88:2A:17:C5:E0:93:5D:BB:4F:12:A6:7E:09:C1:D8:33",
              signingTime: "2026-11-22T09:58:03.000Z",
              coversWholeDocument: false,
              integrity: "ok",
              trusted: true,
              modifiedAfter: true,
              modificationLevel: "form_filling",
              changesPermitted: true,
              level: "B-B",
              documentTimestamp: false,
            },
            {
              field: "Approval",
              visible: false,
              subFilter: "ETSI.CAdES.detached",
              signerName: null,
              certificateSubject: "CN=Signet local signing,O=Signet",
              fingerprint: "3F:A1:0C:77:5B:E2:19:8D:4A:60:C3:9E:21:F4:0B:6D:88:2A:17:C5:E0:93:5D:BB:4F:12:A6:7E:09:C1:D8:33",
              signingTime: null,
              coversWholeDocument: false,
              integrity: "broken",
              trusted: false,
              modifiedAfter: false,
              modificationLevel: "none",
              changesPermitted: true,
              level: null,
              documentTimestamp: false,
            },
          ],
          signer: { name: null, email: null, certificateSubject: "CN=Signet local signing,O=Signet" },
          signers: [
            { name: "Ada Lovelace", email: "ada@example.com", certificateSubject: "CN=Signet local signing,O=Signet" },
            { name: null, email: null, certificateSubject: "CN=Signet local signing,O=Signet" },
          ],
          document: { pages: 2, sha256: "5d41402abc4b2a76b9719d911017c592a1b2c3d4e5f60718293a4b5c6d7e8f90" },
        },
      },
      unsigned: {
        summary: "No signature",
        value: {
          valid: false,
          trusted: false,
          reason: "The document has no signatures.",
          signatures: [],
          signer: null,
          signers: [],
          document: { pages: 1, sha256: "0b5e7d0c4f8a3e21a6c9d7b2e4f1a0c3d5e7f9b1a2c4d6e8f0a1b3c5d7e9f1a2" },
        },
      },
    },
  },
  "verify-key": {
    success: {
      key: {
        summary: "The service certificate",
        value: {
          version: "0.1.0",
          algorithm: "RSA-3072 with SHA-256",
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA...\n-----END PUBLIC KEY-----\n",
          certificate: "-----BEGIN CERTIFICATE-----\nMIIDazCCAlOgAwIBAgIU...\n-----END CERTIFICATE-----\n",
          fingerprint: "3F:A1:0C:77:5B:E2:19:8D:4A:60:C3:9E:21:F4:0B:6D:88:2A:17:C5:E0:93:5D:BB:4F:12:A6:7E:09:C1:D8:33",
          validFrom: "2026-11-22T10:00:00.000Z",
          validTo: "2036-11-20T10:00:00.000Z",
          issuer: "CN=Signet Root CA",
          rootCertificate: "-----BEGIN CERTIFICATE-----\nMIIBkTCCATegAwIBAgIQ...\n-----END CERTIFICATE-----\n",
          chain: ["-----BEGIN CERTIFICATE-----\nMIIBkTCCATegAwIBAgIQ...\n-----END CERTIFICATE-----\n"],
          key: { location: "kms", keyId: "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" },
          issuedBy: "signet",
          attestedHardwareKey: false,
          readers:
            "The private key never leaves AWS KMS: every signature is a KMS Sign request (a CloudTrail event), and access is an IAM decision. The certificate is issued by Signet's own root CA (rootCertificate). PDF readers trust it only where someone installed that root as a trust anchor; elsewhere Adobe Reader shows the signature as valid but its signer's identity as unknown (integrity is still checked). A green tick in Adobe Reader for everyone needs a certificate from a member of the Adobe Approved Trust List (AATL), and AATL members issue only for keys in attested hardware (a CloudHSM or a remote-signing service); a plain AWS KMS key is not attested that way, and neither is a key file.",
        },
      },
    },
  },
  openapi: {},
  docs: {},
  timestamp: {},
  "verify-crl": {},
  uploads: {},
  "keys-list": {},
  "keys-revoke": {},
  "keys-revoke-link": {},
  job: {},
  "job-redeliver": {},
  "webhooks-secret": {},
  protect: {},
  unprotect: {},
  "webhooks-secret-rotate": {},
  merge: {},
  split: {},
  pages: {},
  stamp: {},
  metadata: {},
};
