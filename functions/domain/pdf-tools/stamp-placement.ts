// Where a stamp goes on a page: the chosen pages (ranges), and the matrix that puts the stamp's
// form at its anchor (or x/y) turned by its rotation, as the page is viewed (its /Rotate and crop box).
import { SignetError } from "#domain/shared/errors.ts";

/** Anchor is a named position on the page as viewed. */
export type Anchor = "center" | "top-left" | "top" | "top-right" | "left" | "right" | "bottom-left" | "bottom" | "bottom-right";

/** StampPosition is an anchor with offsets (points, right and up), or the lower-left corner of the stamp's box at x/y. */
export type StampPosition = { anchor: Anchor; offsetX: number; offsetY: number; margin: number } | { x: number; y: number };

/** PageBox is a page's visible box (crop box) in user space and its /Rotate. */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
  rotate: 0 | 90 | 180 | 270;
}

/** Placement is where one stamp lands on one page: the form's matrix and the annotation rectangle around it. */
export interface Placement {
  /** Maps the form's space (0 0 width height) into the page's user space. */
  matrix: [number, number, number, number, number, number];
  /** The bounding box of the placed stamp in user space (an annotation's /Rect). */
  rect: [number, number, number, number];
}

/**
 * parsePageRanges reads "1-3,5,8-" (1-based, inclusive; "N-" to the end; "" or "all" every page)
 * into sorted page indexes (0-based); a page past the end is a VALIDATION_ERROR naming it.
 */
export function parsePageRanges(spec: string | undefined, pageCount: number): number[] {
  const text = (spec ?? "all").replace(/\s+/g, "");
  if (text === "" || text === "all") return Array.from({ length: pageCount }, (_, index) => index);
  const chosen = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\d+)(?:(-)(\d*))?$/.exec(item);
    const first = match ? Number(match[1]) : 0;
    const last = match?.[2] ? (match[3] ? Number(match[3]) : pageCount) : first;
    if (!match || first < 1 || last < first) throw badPages(item, "write N, N-M or N- with 1 <= N <= M");
    if (last > pageCount) throw badPages(item, `the document has ${pageCount} page${pageCount === 1 ? "" : "s"}`);
    for (let page = first; page <= last; page++) chosen.add(page - 1);
  }
  return [...chosen].sort((a, b) => a - b);
}

function badPages(item: string, issue: string): SignetError {
  return new SignetError("VALIDATION_ERROR", `pages: "${item}" is not a range of this document's pages (${issue}).`, { details: [{ field: "pages", issue }] });
}

/** rotatedExtent is the width and height of the box a w x h rectangle turned by `degrees` occupies. */
function rotatedExtent(width: number, height: number, degrees: number): { width: number; height: number } {
  const radians = (degrees * Math.PI) / 180;
  const [cos, sin] = [Math.abs(Math.cos(radians)), Math.abs(Math.sin(radians))];
  return { width: width * cos + height * sin, height: width * sin + height * cos };
}

/** centreAsViewed is where the stamp's centre goes, in the page's coordinates as viewed (origin lower left). */
function centreAsViewed(position: StampPosition, view: { width: number; height: number }, extent: { width: number; height: number }): [number, number] {
  if ("x" in position) return [position.x + extent.width / 2, position.y + extent.height / 2];
  const { anchor, margin } = position;
  const horizontal = anchor.endsWith("left") ? -1 : anchor.endsWith("right") ? 1 : 0;
  const vertical = anchor.startsWith("top") ? 1 : anchor.startsWith("bottom") ? -1 : 0;
  const x = view.width / 2 + horizontal * (view.width / 2 - margin - extent.width / 2);
  const y = view.height / 2 + vertical * (view.height / 2 - margin - extent.height / 2);
  return [x + position.offsetX, y + position.offsetY];
}

/** toUserSpace maps a point of the page as viewed to user space (ISO 32000-1 8.3.2.3: /Rotate turns the page clockwise). */
function toUserSpace(box: PageBox, [dx, dy]: [number, number]): [number, number] {
  switch (box.rotate) {
    case 90:
      return [box.x + box.width - dy, box.y + dx];
    case 180:
      return [box.x + box.width - dx, box.y + box.height - dy];
    case 270:
      return [box.x + dy, box.y + box.height - dx];
    default:
      return [box.x + dx, box.y + dy];
  }
}

/**
 * placeStamp puts a width x height stamp on a page: centred on its anchor (or from x/y), turned by
 * `rotation` degrees counter-clockwise as the page is viewed (the page's /Rotate is added, so the
 * stamp reads upright on a rotated page when `rotation` is 0).
 */
export function placeStamp(box: PageBox, stamp: { width: number; height: number }, position: StampPosition, rotation: number): Placement {
  const view = box.rotate === 90 || box.rotate === 270 ? { width: box.height, height: box.width } : { width: box.width, height: box.height };
  const extent = rotatedExtent(stamp.width, stamp.height, rotation);
  const [cx, cy] = toUserSpace(box, centreAsViewed(position, view, extent));
  const radians = ((rotation + box.rotate) * Math.PI) / 180;
  const [cos, sin] = [Math.cos(radians), Math.sin(radians)];
  const [hw, hh] = [stamp.width / 2, stamp.height / 2];
  const e = cx - (cos * hw - sin * hh);
  const f = cy - (sin * hw + cos * hh);
  const user = rotatedExtent(stamp.width, stamp.height, rotation + box.rotate);
  return {
    matrix: [cos, sin, -sin, cos, e, f],
    rect: [cx - user.width / 2, cy - user.height / 2, cx + user.width / 2, cy + user.height / 2],
  };
}
