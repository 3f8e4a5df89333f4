/** der: a minimal DER writer and reader, enough for CMS signatures without schema machinery. */

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** tlv encodes one element from its tag and content parts. */
export function tlv(tag: number, ...parts: Uint8Array[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

/** sequence encodes a SEQUENCE. */
export const sequence = (...parts: Uint8Array[]): Buffer => tlv(0x30, ...parts);

/** setOf encodes a SET OF with its elements in DER order (sorted by their encodings). */
export const setOf = (...parts: Buffer[]): Buffer => tlv(0x31, ...[...parts].sort(Buffer.compare));

/** octetString encodes an OCTET STRING. */
export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);

/** integer encodes a small non-negative INTEGER. */
export const integer = (value: number): Buffer => tlv(0x02, Buffer.from([value]));

/**
 * randomPositiveInteger returns `size` random bytes usable as the content of a DER INTEGER that is
 * positive and minimal: the top bit clear (not negative) and the first byte never 0 (a leading zero
 * before a byte below 0x80 is non-minimal, and OpenSSL refuses such certificates and requests).
 */
export function randomPositiveInteger(random: Uint8Array): Buffer {
  const bytes = Buffer.from(random);
  bytes[0] = 0x40 | (bytes[0]! & 0x3f);
  return bytes;
}

/** DER NULL. */
export const nullValue = Buffer.from([0x05, 0x00]);

/** objectIdentifier encodes an OBJECT IDENTIFIER from its dotted form. */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const bytes: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) chunk.unshift(0x80 | (rest & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** Element is one decoded TLV: where it starts, where its content starts and where it ends. */
export interface Element {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

/** readElement decodes the TLV header at `offset` (single-byte tags, definite lengths). */
export function readElement(bytes: Uint8Array, offset: number): Element {
  const tag = bytes[offset]!;
  let length = bytes[offset + 1]!;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error("unsupported DER length");
    length = 0;
    for (let index = 0; index < count; index++) length = length * 256 + bytes[contentStart + index]!;
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > bytes.length) throw new Error("DER element runs past the end");
  return { tag, start: offset, contentStart, end };
}

/** children lists the elements inside a constructed element. */
export function children(bytes: Uint8Array, parent: Element): Element[] {
  const list: Element[] = [];
  for (let offset = parent.contentStart; offset < parent.end; ) {
    const element = readElement(bytes, offset);
    list.push(element);
    offset = element.end;
  }
  return list;
}
