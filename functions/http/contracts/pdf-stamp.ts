import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { documentOutputSchema } from "#http/contracts/sign.ts";

const anchors = ["center", "top-left", "top", "top-right", "left", "right", "bottom-left", "bottom", "bottom-right"] as const;

/** hexColor is "#RRGGBB". */
const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "a colour as #RRGGBB")
  .meta({ example: "#C0392B" });

const points = (description: string) => z.number().min(-14_400).max(14_400).meta({ description });

/** stampPositionSchema is where the stamp goes: an anchor with offsets, or x/y. */
const stampPositionSchema = z
  .union([
    z.strictObject({
      anchor: z.enum(anchors).default("center").meta({ description: "A named position on the page as viewed (its /Rotate and crop box taken into account)." }),
      offsetX: points("Points to the right of the anchor.").default(0),
      offsetY: points("Points up from the anchor.").default(0),
      margin: z.number().min(0).max(1_000).default(36).meta({ description: "Distance in points from the page edge for the edge and corner anchors." }),
    }),
    z.strictObject({
      x: points("The lower-left corner of the stamp's box, points from the page's left edge as viewed."),
      y: points("The lower-left corner of the stamp's box, points from the page's bottom edge as viewed."),
    }),
  ])
  .meta({ id: "StampPosition" });

/** stampRequestSchema is the body of POST /v1/stamp. */
const stampRequestSchema = z
  .strictObject({
    document: documentInputSchema,
    text: z
      .strictObject({
        value: z.string().min(1).max(1_000).meta({
          description:
            "The text, in any script the certificate page draws (Latin, Cyrillic, Greek, Arabic, Hebrew, CJK, Devanagari, Tamil, Thai, emoji); a newline starts another line.",
        }),
        font: z
          .enum(["regular", "bold", "mono"])
          .default("bold")
          .meta({ description: "The bundled family: DejaVu Sans, DejaVu Sans Bold or DejaVu Sans Mono, with the fallbacks for other scripts." }),
        size: z.number().min(1).max(500).default(48).meta({ description: "Font size in points." }),
        color: hexColor.default("#C0392B"),
      })
      .optional(),
    image: z
      .strictObject({
        value: z.string().min(1).meta({
          description:
            "A PNG, JPEG, WebP or SVG picture as a base64 data URI or an https URL (the format decided by its bytes; SVG sanitised), within the picture limits of annotate.",
        }),
        width: z
          .number()
          .positive()
          .max(14_400)
          .optional()
          .meta({ description: "Width in points; default its pixel size at 96 dpi (or from height, keeping the proportions)." }),
        height: z.number().positive().max(14_400).optional().meta({ description: "Height in points; default from the width, keeping the proportions." }),
      })
      .optional(),
    opacity: z.number().min(0).max(1).default(0.5).meta({ description: "0 invisible to 1 opaque (an /ExtGState with /ca and /CA)." }),
    rotation: z
      .number()
      .min(-360)
      .max(360)
      .default(0)
      .meta({ description: "Degrees counter-clockwise, as the page is viewed (45 is the usual diagonal watermark)." }),
    position: stampPositionSchema.default({ anchor: "center", offsetX: 0, offsetY: 0, margin: 36 }),
    pages: z
      .string()
      .max(1_000)
      .optional()
      .meta({ description: 'Pages to stamp, 1-based ranges: "1-3,5,8-" ("8-" to the end); every page when absent.', example: "1-3,5" }),
    layer: z.enum(["over", "under"]).default("over").meta({ description: "over the page content, or under it (visible where the page is transparent)." }),
    as: z.enum(["auto", "content", "annotation"]).default("auto").meta({
      description:
        "auto: page content on an unsigned PDF, /Stamp annotations in an incremental update on a signed one (its signatures stay valid); content or annotation to choose.",
    }),
    dropSignatures: z
      .boolean()
      .default(false)
      .meta({ description: "On a signed PDF, remove its signatures when the stamp would break them instead of answering 409." }),
  })
  .refine((body) => body.text !== undefined || body.image !== undefined, { message: "give text, image or both", path: ["text"] })
  .meta({ id: "StampRequest" });

/** droppedSignaturesSchema lists the signatures a PDF tool removed (dropSignatures). */
const droppedSignaturesSchema = z
  .array(z.string())
  .meta({ description: "The signature fields whose signatures were removed (dropSignatures: true); empty otherwise." });

/** stampRoute: POST /v1/stamp. */
export const stampRoute = defineRoute({
  name: "stamp",
  async: true,
  method: "POST",
  path: "/v1/stamp",
  auth: true,
  idempotent: true,
  streaming: true, // a 25 MB PDF comes back as a ~34 MB JSON answer
  tag: "PDF tools",
  summary: "Stamp or watermark a PDF",
  description:
    'Draws text (any script the certificate page handles) and/or a picture on the chosen pages, over or under the page content, with font, size, colour, opacity, rotation and position. An unsigned PDF gets the stamp in its page content: one form XObject that every page paints. A signed PDF gets /Stamp annotations in an incremental update, which its signatures permit (verify still calls them valid); a certification allowing no annotations (DocMDP P=1 or P=2), `as: "content"` or `layer: "under"` on a signed PDF is 409 WOULD_INVALIDATE_SIGNATURES naming the signatures, unless `dropSignatures` is true (the answer then lists them). An encrypted PDF opens with `document.password` and stays encrypted with its own key (changing it needs the owner password, or permissions that allow changes).',
  body: {
    kind: "json",
    schema: stampRequestSchema,
    example: {
      document: { url: "https://example.com/contract.pdf" },
      text: { value: "CONFIDENTIAL", font: "bold", size: 60, color: "#C0392B" },
      opacity: 0.3,
      rotation: 45,
      position: { anchor: "center" },
      pages: "1-",
    },
  },
  success: {
    description: "The stamped PDF, plain base64, and how the stamp was written.",
    contentType: "application/json",
    schema: z
      .object({
        document: documentOutputSchema,
        mode: z.enum(["content", "annotation"]).meta({ description: "content: drawn in the pages; annotation: /Stamp annotations in an incremental update." }),
        pages: z.number().int().meta({ description: "How many pages were stamped." }),
        droppedSignatures: droppedSignaturesSchema,
      })
      .meta({ id: "StampResponse" }),
  },
  errors: [
    "INVALID_DOCUMENT",
    "ENCRYPTED_DOCUMENT",
    "WRONG_PASSWORD",
    "WOULD_INVALIDATE_SIGNATURES",
    "INVALID_IMAGE",
    "PAYLOAD_TOO_LARGE",
    "IMAGE_TOO_LARGE",
    "FETCH_FAILED",
    "RATE_LIMIT_ERROR",
  ],
});
