// The SSRF address classifier, table-driven. Nothing here connects anywhere.
import { describe, expect, it } from "vitest";
import { classifyAddress } from "#domain/shared/address-policy.ts";

// [address, allowed, what the refusal must name]
const table: Array<[string, boolean, RegExp?]> = [
  // IPv4
  ["8.8.8.8", true],
  ["1.1.1.1", true],
  ["127.0.0.1", false, /loopback/],
  ["127.255.255.254", false, /loopback/],
  ["10.1.2.3", false, /private/],
  ["172.16.0.1", false, /private/],
  ["192.168.0.1", false, /private/],
  ["169.254.169.254", false, /link-local/],
  ["100.64.0.1", false, /carrier-grade/],
  ["0.0.0.0", false, /unspecified/],
  ["0.1.2.3", false, /unspecified/],
  ["255.255.255.255", false, /broadcast/],
  ["224.0.0.1", false, /multicast/],
  ["192.0.2.1", false, /reserved/],
  ["198.18.0.1", false, /reserved/],
  ["240.0.0.1", false, /reserved/],
  // IPv6, plain
  ["2606:4700:4700::1111", true],
  ["2a00:1450:4001:82a::200e", true],
  ["::", false, /unspecified/],
  ["::1", false, /loopback/],
  ["fe80::1", false, /not public/],
  ["fe80::1%eth0", false, /not public/],
  ["fc00::1", false, /not public/],
  ["fd00:ec2::254", false, /not public/],
  ["fec0::1", false, /not public/],
  ["ff02::1", false, /not public/],
  ["100::1", false, /not public/],
  ["2001:db8::1", false, /reserved/],
  ["2001:2::1", false, /benchmarking/],
  ["5f00::1", false, /not public/],
  // IPv4-compatible ::/96 (deprecated): ::7f00:1 is 127.0.0.1
  ["::7f00:1", false, /IPv4-compatible IPv6 carrying 127\.0\.0\.1, which is loopback/],
  ["::127.0.0.1", false, /IPv4-compatible IPv6 carrying 127\.0\.0\.1/],
  ["::a9fe:a9fe", false, /carrying 169\.254\.169\.254, which is link-local/],
  ["::a00:1", false, /carrying 10\.0\.0\.1, which is private/],
  ["::808:808", false, /IPv4-compatible/],
  // IPv4-mapped ::ffff:0:0/96 and IPv4-translated ::ffff:0:0:0/96
  ["::ffff:127.0.0.1", false, /IPv4-mapped IPv6 carrying 127\.0\.0\.1/],
  ["::ffff:7f00:1", false, /IPv4-mapped IPv6 carrying 127\.0\.0\.1/],
  ["::ffff:169.254.169.254", false, /carrying 169\.254\.169\.254/],
  ["::ffff:8.8.8.8", false, /IPv4-mapped/],
  ["::ffff:0:7f00:1", false, /IPv4-translated IPv6 carrying 127\.0\.0\.1/],
  // NAT64 well-known prefix 64:ff9b::/96 and local-use 64:ff9b:1::/48
  ["64:ff9b::7f00:1", false, /NAT64 IPv6 carrying 127\.0\.0\.1/],
  ["64:ff9b::10.0.0.1", false, /NAT64 IPv6 carrying 10\.0\.0\.1, which is private/],
  ["64:ff9b::a9fe:a9fe", false, /NAT64 IPv6 carrying 169\.254\.169\.254/],
  ["64:ff9b::808:808", false, /NAT64/],
  ["64:ff9b:1::a00:1", false, /local-use NAT64/],
  ["64:ff9b:1:ffff::1", false, /local-use NAT64/],
  // 6to4 2002::/16: the IPv4 is bits 16-47
  ["2002:7f00:1::1", false, /6to4 IPv6 carrying 127\.0\.0\.1/],
  ["2002:a9fe:a9fe::", false, /6to4 IPv6 carrying 169\.254\.169\.254/],
  ["2002:c0a8:101::1", false, /6to4 IPv6 carrying 192\.168\.1\.1/],
  ["2002:808:808::1", false, /6to4/],
  // Teredo 2001::/32: server IPv4 in bits 32-63, client IPv4 = last 32 bits XOR 0xffffffff
  ["2001:0:7f00:1::1", false, /Teredo server IPv6 carrying 127\.0\.0\.1/],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", false, /Teredo client IPv6 carrying 127\.0\.0\.1/],
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", false, /Teredo client IPv6 carrying 10\.0\.0\.1, which is private/],
  ["2001:0:4136:e378:8000:63bf:5601:5601", false, /Teredo client IPv6 carrying 169\.254\.169\.254/],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false, /Teredo client IPv6 carrying 192\.0\.2\.45, which is reserved/],
  ["2001:0:808:808::f7f7:f7f7", false, /Teredo/],
  // Not an address at all
  ["localhost", false, /not an IP address/],
];

describe("classifyAddress", () => {
  it.each(table)("%s allowed=%s", (address, allowed, reason) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(allowed);
    if (!verdict.allowed && reason) expect(verdict.reason).toMatch(reason);
  });
});
