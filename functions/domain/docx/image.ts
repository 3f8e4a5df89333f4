import { imageSize, type Dimensions, type LoadedImage } from "#domain/pictures/load.ts";
import type { DocxPackage } from "#domain/docx/package.ts";
import { RelationshipType, Relationships, ensureContentTypeDefault } from "#domain/docx/relationships.ts";
import { placeRun } from "#domain/docx/fill.ts";
import type { Control, Template } from "#domain/docx/template.ts";
import { NS, cloneInto, escapeAttribute, parseXml } from "#domain/docx/xml.ts";

/** EMU_PER_PX converts CSS pixels (1/96 in) to English Metric Units. */
const EMU_PER_PX = 9525;

/** SVG_BLIP is Word's (2016 and later) extension of a:blip that carries the SVG beside its PNG fallback. */
const SVG_BLIP = { uri: "{96DAC541-7B7A-43D3-8B79-37D633B846F1}", namespace: "http://schemas.microsoft.com/office/drawing/2016/SVG/main" } as const;

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
