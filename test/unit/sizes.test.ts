import { describe, expect, it } from "vitest";
import { formatBytes } from "#domain/shared/sizes.ts";

describe("formatBytes", () => {
  it.each([
    [25 * 1024 * 1024, "25 MB"],
    [1.5 * 1024 * 1024, "1.5 MB"],
    [256 * 1024, "256 KB"],
    [16 * 1024, "16 KB"],
    [1000, "1000 bytes"],
    [0, "0 bytes"],
  ])("%i -> %s", (bytes, expected) => expect(formatBytes(bytes)).toBe(expected));
});
