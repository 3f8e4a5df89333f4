import ipaddr from "ipaddr.js";

/** AddressVerdict says whether a fetch may connect to an address, and why not. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const refuse = (reason: string): AddressVerdict => ({ allowed: false, reason });

// ipaddr.js range names, in words for the error message.
const rangeWords: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (shared)",
  private: "private",
  reserved: "reserved or documentation-only",
  as112: "AS112 (reserved)",
  amt: "AMT relay (reserved)",
  uniqueLocal: "unique-local (private)",
  deprecatedSiteLocal: "site-local (private)",
  discard: "discard-only",
  benchmarking: "benchmarking-only",
  deprecatedOrchid: "ORCHID (not routable)",
  orchid2: "ORCHIDv2 (not routable)",
  droneRemoteIdProtocolEntityTags: "DRIP (not routable)",
  segmentRouting: "segment-routing (not routable)",
  as112v6: "AS112 (reserved)",
};

/** refusedV4Kind says what kind of non-public IPv4 address this is, or undefined for public unicast. */
function refusedV4Kind(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === "unicast" ? undefined : (rangeWords[range] ?? range);
}

const v4FromBits = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4;

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];
const GLOBAL_UNICAST = cidr("2000::/3");
const IPV4_COMPATIBLE = cidr("::/96");
const IPV4_MAPPED = cidr("::ffff:0:0/96");
const IPV4_TRANSLATED = cidr("::ffff:0:0:0/96");
const NAT64_WELL_KNOWN = cidr("64:ff9b::/96");
const NAT64_LOCAL = cidr("64:ff9b:1::/48");
const SIX_TO_FOUR = cidr("2002::/16");
const TEREDO = cidr("2001::/32");

/**
 * embeddedV4 lists the IPv4 addresses an IPv6 address carries (IPv4-compatible, IPv4-mapped,
 * IPv4-translated, NAT64 64:ff9b::/96, 6to4 and both Teredo addresses), with how each is embedded.
 */
function embeddedV4(address: ipaddr.IPv6): Array<{ v4: ipaddr.IPv4; form: string }> {
  const p = address.parts;
  const last = () => v4FromBits(p[6]!, p[7]!);
  if (address.match(IPV4_MAPPED)) return [{ v4: last(), form: "IPv4-mapped" }];
  if (address.match(IPV4_TRANSLATED)) return [{ v4: last(), form: "IPv4-translated" }];
  if (address.match(IPV4_COMPATIBLE)) return [{ v4: last(), form: "IPv4-compatible" }];
  if (address.match(NAT64_WELL_KNOWN)) return [{ v4: last(), form: "NAT64" }];
  if (address.match(SIX_TO_FOUR)) return [{ v4: v4FromBits(p[1]!, p[2]!), form: "6to4" }];
  if (address.match(TEREDO)) {
    return [
      { v4: v4FromBits(p[2]!, p[3]!), form: "Teredo server" },
      // The Teredo client's public IPv4 is the last 32 bits, inverted.
      { v4: v4FromBits(p[6]! ^ 0xffff, p[7]! ^ 0xffff), form: "Teredo client" },
    ];
  }
  return [];
}

/**
 * classifyAddress decides whether a document or image fetch may connect to an IP address: only
 * public unicast IPv4, and IPv6 in global unicast (2000::/3) outside every special range. IPv6
 * forms that carry an IPv4 address (IPv4-compatible ::/96, IPv4-mapped, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) are refused, naming the embedded IPv4 when
 * that one is itself refused (::7f00:1 is loopback 127.0.0.1).
 */
export function classifyAddress(text: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Zone ids (fe80::1%eth0) are link-local anyway; parse without them.
    const bare = text.replace(/%.*$/, "");
    // The URL parser's canonical IPv6 form first: ipaddr.js reads "::127.0.0.1" as IPv4-mapped.
    parsed = ipaddr.parse(bare.includes(":") ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare);
  } catch {
    return refuse(`"${text}" is not an IP address`);
  }
  if (parsed.kind() === "ipv4") {
    const kind = refusedV4Kind(parsed as ipaddr.IPv4);
    return kind ? refuse(`${parsed.toString()} is ${kind}, not public`) : { allowed: true };
  }
  const v6 = parsed as ipaddr.IPv6;
  const shown = text;
  const range = v6.range();
  if (range === "unspecified" || range === "loopback") return refuse(`${shown} is ${rangeWords[range]}, not public`);
  for (const { v4, form } of embeddedV4(v6)) {
    const kind = refusedV4Kind(v4);
    if (kind) return refuse(`${shown} is ${form} IPv6 carrying ${v4.toString()}, which is ${kind}, not public`);
  }
  if (v6.match(NAT64_LOCAL)) return refuse(`${shown} is a local-use NAT64 address (64:ff9b:1::/48), not public`);
  const embedded = embeddedV4(v6)[0];
  if (embedded) return refuse(`${shown} is ${embedded.form} IPv6 (a tunnel or translation address), not a public destination`);
  if (!v6.match(GLOBAL_UNICAST)) return refuse(`${shown} is outside global unicast (2000::/3), not public`);
  if (range !== "unicast") return refuse(`${shown} is ${rangeWords[range] ?? range}, not public`);
  return { allowed: true };
}
