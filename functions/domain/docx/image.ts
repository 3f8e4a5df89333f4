import { createHash } from "node:crypto";
import { decodeBase64 } from "#domain/shared/document.ts";
import { SignetError, isSignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { checkImagePixels, readImageInfo, sniffImageFormat, type ImageInfo } from "#domain/docx/image-info.ts";
import { convertSvg, convertWebp, type ConvertedPicture, type PictureConverters } from "#domain/docx/picture-formats.ts";
import type { DocxPackage } from "#domain/docx/package.ts";
import { RelationshipType, Relationships, ensureContentTypeDefault } from "#domain/docx/relationships.ts";
import { placeRun } from "#domain/docx/fill.ts";
import type { Control, Template } from "#domain/docx/template.ts";
import { NS, cloneInto, escapeAttribute, parseXml } from "#domain/docx/xml.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** EMU_PER_PX converts CSS pixels (1/96 in) to English Metric Units. */
const EMU_PER_PX = 9525;

/** SVG_BLIP is Word's (2016 and later) extension of a:blip that carries the SVG beside its PNG fallback. */
const SVG_BLIP = { uri: "{96DAC541-7B7A-43D3-8B79-37D633B846F1}", namespace: "http://schemas.microsoft.com/office/drawing/2016/SVG/main" } as const;

/**
 * LoadedImage is an image value fetched or decoded and identified: `bytes` is the picture every
 * reader shows (PNG, JPEG or GIF; a WebP converted to PNG, an SVG's PNG fallback); `info` its type
 * and the size to draw it at by default; `svg` the sanitised SVG Word shows instead, if any.
 */
export interface LoadedImage {
  bytes: Uint8Array;
  info: ImageInfo;
  sha256: string;
  svg?: { bytes: Uint8Array; sha256: string } | undefined;
}

/** ImageLoadDeps are what loading an image value needs: the fetcher, the limits and the converters for SVG and WebP. */
export interface ImageLoadDeps {
  fetcher: Fetcher;
  maxImageBytes: number;
  maxImagePixels: number;
  pictures?: PictureConverters | undefined;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** storedBytes is what an image adds to the document (and to the call's image budget). */
export function storedBytes(image: LoadedImage): number {
  return image.bytes.length + (image.svg?.bytes.length ?? 0);
}

function converted(picture: ConvertedPicture): LoadedImage {
  return {
    bytes: picture.png,
    info: { format: "png", contentType: "image/png", extension: "png", width: picture.width, height: picture.height },
    sha256: sha256(picture.png),
    svg: picture.svg ? { bytes: picture.svg, sha256: sha256(picture.svg) } : undefined,
  };
}

/** Dimensions are the requested size in CSS px; either may be missing. */
export interface Dimensions {
  width?: number | string | undefined;
  height?: number | string | undefined;
}

/**
 * loadImage decodes a data URI or fetches a URL and identifies the picture by its bytes (never by a
 * claimed type): PNG, JPEG and GIF are kept as they are; a WebP becomes a PNG; an SVG is sanitised
 * and gets a PNG fallback. Every picture's declared pixel size is within maxImagePixels
 * (IMAGE_TOO_LARGE), checked before anything decodes it.
 */
export async function loadImage(value: string, fieldName: string, deps: ImageLoadDeps): Promise<LoadedImage> {
  const invalid = (issue: string) =>
    new SignetError("INVALID_IMAGE", `${fieldName} must be a PNG, JPEG, GIF, WebP or SVG image given as a base64 data URI or an https URL (${issue}).`, {
      details: [{ field: `${fieldName}.value`, issue }],
    });
  let bytes: Uint8Array;
  if (value.startsWith("data:")) {
    try {
      bytes = decodeBase64(value, `${fieldName}.value`).bytes;
    } catch (error) {
      if (isSignetError(error) && error.code === "VALIDATION_ERROR") throw invalid("malformed data URI");
      throw error;
    }
    if (bytes.length > deps.maxImageBytes) {
      throw new SignetError("PAYLOAD_TOO_LARGE", `${fieldName} is larger than the ${formatBytes(deps.maxImageBytes)} image limit.`);
    }
  } else if (/^https?:\/\//i.test(value)) {
    bytes = (await deps.fetcher.fetch(value, { maxBytes: deps.maxImageBytes, what: `${fieldName} image` })).bytes;
  } else {
    throw invalid("neither a data URI nor a URL");
  }
  const format = sniffImageFormat(bytes);
  if (format === "svg" || format === "webp") {
    if (!deps.pictures) throw new Error("loadImage: SVG and WebP need the picture converters");
    const limits = { maxImagePixels: deps.maxImagePixels };
    return converted(
      format === "svg"
        ? await convertSvg(bytes, fieldName, { renderer: deps.pictures.svg, ...limits })
        : await convertWebp(bytes, fieldName, { decoder: deps.pictures.webp, ...limits }),
    );
  }
  const info = format ? readImageInfo(bytes) : undefined;
  if (!info) throw invalid("the bytes are not a PNG, JPEG, GIF, WebP or SVG image");
  checkImagePixels(info, deps.maxImagePixels, fieldName, `${fieldName}.value`);
  return { bytes, info, sha256: sha256(bytes) };
}

/**
 * imageSize decides the drawn size in px: both dimensions as given; one keeps the aspect ratio;
 * none uses the natural size, scaled down to the text width when wider.
 */
export function imageSize(info: Pick<ImageInfo, "width" | "height">, requested: Dimensions | undefined, maxWidthPx: number): { width: number; height: number } {
  const width = toNumber(requested?.width);
  const height = toNumber(requested?.height);
  if (width && height) return { width, height };
  if (width) return { width, height: (width * info.height) / info.width };
  if (height) return { width: (height * info.width) / info.height, height };
  if (info.width <= maxWidthPx) return { width: info.width, height: info.height };
  return { width: maxWidthPx, height: (maxWidthPx * info.height) / info.width };
}

function toNumber(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "number" ? value : Number(value);
  return Number.isFinite(number) && number > 0 ? number : undefined;
}

/** MediaFile is one part written to word/media/. */
interface MediaFile {
  bytes: Uint8Array;
  sha256: string;
  extension: string;
  contentType: string;
}

/** ImageWriter adds media parts and relationships once per image and part, and draws images into controls. */
export class ImageWriter {
  private readonly media = new Map<string, string>();
  private readonly relationships = new Map<string, Relationships>();
  private readonly relationshipIds = new Map<string, string>();
  private nextDrawingId: number;

  constructor(
    private readonly pkg: DocxPackage,
    private readonly template: Template,
  ) {
    this.nextDrawingId = template.maxDrawingId() + 1;
  }

  /** draw replaces a control's content with an inline picture of the image at the given size. */
  draw(control: Control, image: LoadedImage, requested: Dimensions | undefined, description: string): void {
    const size = imageSize(image.info, requested, this.template.textWidthPx(control));
    const relationshipId = this.relationshipFor(control.part.name, {
      bytes: image.bytes,
      sha256: image.sha256,
      extension: image.info.extension,
      contentType: image.info.contentType,
    });
    // An SVG goes the way Word writes it: the PNG as the blip every reader shows, the SVG in Word's extension.
    const svgId = image.svg ? this.relationshipFor(control.part.name, { ...image.svg, extension: "svg", contentType: "image/svg+xml" }) : undefined;
    const blip = svgId
      ? `<a:blip r:embed="${relationshipId}"><a:extLst><a:ext uri="${SVG_BLIP.uri}"><asvg:svgBlip xmlns:asvg="${SVG_BLIP.namespace}" r:embed="${svgId}"/></a:ext></a:extLst></a:blip>`
      : `<a:blip r:embed="${relationshipId}"/>`;
    const cx = Math.max(1, Math.round(size.width * EMU_PER_PX));
    const cy = Math.max(1, Math.round(size.height * EMU_PER_PX));
    const id = this.nextDrawingId++;
    const writer = control.part.writer;
    const w = writer.el("w", "r").prefix;
    const q = (local: string) => (w ? `${w}:${local}` : local);
    const name = `Picture ${id}`;
    const xml =
      `<${q("drawing")} xmlns${w ? `:${w}` : ""}="${NS.w}" xmlns:wp="${NS.wp}" xmlns:a="${NS.a}" xmlns:pic="${NS.pic}" xmlns:r="${NS.r}">` +
      `<wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
      `<wp:docPr id="${id}" name="${name}" descr="${escapeAttribute(description)}"/>` +
      `<wp:cNvGraphicFramePr><a:graphicFrameLocks noChangeAspect="1"/></wp:cNvGraphicFramePr>` +
      `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>` +
      `<pic:nvPicPr><pic:cNvPr id="${id}" name="${name}"/><pic:cNvPicPr/></pic:nvPicPr>` +
      `<pic:blipFill>${blip}<a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
      `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>` +
      `</pic:pic></a:graphicData></a:graphic></wp:inline></${q("drawing")}>`;
    const drawing = cloneInto(writer.doc, parseXml(xml, "drawing").documentElement!);
    // The w namespace is declared on the part's root already; keep the spliced XML free of a duplicate.
    drawing.removeAttribute(w ? `xmlns:${w}` : "xmlns");
    placeRun(control, (rPr) => {
      const run = writer.el("w", "r");
      if (rPr) run.appendChild(cloneInto(writer.doc, rPr));
      run.appendChild(drawing);
      return run;
    });
  }

  /** save writes the relationship parts that changed. */
  save(): void {
    for (const relationships of this.relationships.values()) relationships.save();
  }

  private relationshipFor(part: string, image: MediaFile): string {
    const key = `${part}\u0000${image.sha256}`;
    const known = this.relationshipIds.get(key);
    if (known) return known;
    const mediaPath = this.mediaFor(image);
    let relationships = this.relationships.get(part);
    if (!relationships) {
      relationships = Relationships.of(this.pkg, part);
      this.relationships.set(part, relationships);
    }
    const partDir = part.slice(0, part.lastIndexOf("/") + 1);
    const target = mediaPath.startsWith(partDir) ? mediaPath.slice(partDir.length) : `/${mediaPath}`;
    const id = relationships.add(RelationshipType.image, target);
    this.relationshipIds.set(key, id);
    return id;
  }

  private mediaFor(image: MediaFile): string {
    const known = this.media.get(image.sha256);
    if (known) return known;
    let n = this.media.size + 1;
    let path = `word/media/signet-image-${n}.${image.extension}`;
    while (this.pkg.has(path)) path = `word/media/signet-image-${++n}.${image.extension}`;
    this.pkg.set(path, image.bytes);
    ensureContentTypeDefault(this.pkg, image.extension, image.contentType);
    this.media.set(image.sha256, path);
    return path;
  }
}
