import { inflateSync } from "node:zlib";
import type { CompoundStream } from "#domain/shared/compound-file.ts";
import { SVG_HEAD, svgIn } from "#domain/documents/checks/package-svg.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/**
 * Pictures inside Word, Excel and PowerPoint 97-2003 files are OfficeArt BLIP records ([MS-ODRAW]
 * 2.2.23-2.2.31, record types 0xF018-0xF117): a header, one or two 16-byte ids, then a one-byte tag
 * and the picture (PNG, JPEG, DIB, TIFF) or a 34-byte metafile header and the metafile (EMF, WMF,
 * PICT), usually deflated. LibreOffice hands the picture bytes to its format detection, which takes
 * an SVG for an SVG whatever the record says. Such a file cannot be rewritten here, so a picture
 * whose bytes are an SVG is refused, not sanitised.
 */

const BLIP_FIRST = 0xf018;
const BLIP_LAST = 0xf117;
// Where the picture bytes may start in a BLIP record's data: after one or two ids, with the tag
// byte (bitmaps) or the metafile header (metafiles).
const DATA_OFFSETS = [16, 17, 32, 33, 50, 66];

/** blipData is the start of the data of a BLIP record at `at`, or undefined when no BLIP record header is there. */
function blipData(stream: Buffer, at: number): Buffer | undefined {
  const type = stream.readUInt16LE(at + 2);
  if (type < BLIP_FIRST || type > BLIP_LAST || (stream[at]! & 0x0f) !== 0) return undefined;
  const length = stream.readUInt32LE(at + 4);
  if (length < 17 || length > stream.length - at - 8) return undefined;
  return stream.subarray(at + 8, at + 8 + Math.min(length, DATA_OFFSETS.at(-1)! + SVG_HEAD));
}

/** svgInBlip tells whether a BLIP record's picture, as it is or inflated, is an SVG to LibreOffice. */
function svgInBlip(data: Buffer): boolean {
  for (const offset of DATA_OFFSETS) {
    const picture = data.subarray(offset);
    if (picture.length < 4) continue;
    if (svgIn(picture)) return true;
    // A deflated metafile (zlib header): inflated as far as the head goes.
    if (picture[0] === 0x78 && ((picture[0] << 8) | picture[1]!) % 31 === 0) {
      try {
        if (svgIn(inflateSync(picture, { finishFlush: 2 /* Z_SYNC_FLUSH */, maxOutputLength: 5 * 1024 * 1024 }))) return true;
      } catch {
        // Not a deflate stream: nothing LibreOffice could inflate either.
      }
    }
  }
  return false;
}

/**
 * svgPictureIn finds a picture in a compound file's streams whose bytes LibreOffice would read as an
 * SVG; returns where ("<stream> stream, byte N") or undefined. The walk pauses every few milliseconds.
 */
export async function svgPictureIn(streams: readonly CompoundStream[]): Promise<string | undefined> {
  const slice = new TimeSlice();
  for (const { name, bytes } of streams) {
    for (let at = 0; at + 8 <= bytes.length; at++) {
      if ((at & 0xffff) === 0 && slice.due()) await slice.pause();
      if (bytes[at + 3] !== 0xf0 && bytes[at + 3] !== 0xf1) continue;
      const data = blipData(bytes, at);
      if (data && svgInBlip(data)) return `${name} stream, byte ${at}`;
    }
  }
  return undefined;
}
