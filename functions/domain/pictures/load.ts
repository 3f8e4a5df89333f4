// Pictures as callers give them (a data URI or an https URL): identified by their bytes, WebP and
// SVG turned into PNG, every size checked before anything decodes it. Annotate places them in a
// template; signatures and stamps draw them on a PDF page.
import { createHash } from "node:crypto";
import { decodeBase64 } from "#domain/shared/document.ts";
import { SignetError, isSignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { checkImagePixels, readImageInfo, sniffImageFormat, type ImageInfo } from "#domain/pictures/image-info.ts";
import { convertSvg, convertWebp, type ConvertedPicture, type PictureConverters } from "#domain/pictures/picture-formats.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

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
