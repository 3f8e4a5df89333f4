// The sliced scans of the office input checks give the same results as the one-go calls they
// replace, across their 4 MB windows and when two run at once with the same expression.
import { describe, expect, it } from "vitest";
import { decodeUtf8, encodeUtf8, replaceInSlices, TimeSlice, wordsIn } from "#domain/shared/time-slice.ts";

const MB = 1024 * 1024;

describe("sliced scans", () => {
  it.each([
    ["tags", "<a x='1'/><b/><a y=\"2\">t</a>", /<a\b[^>]*>/g],
    ["empty matches", "abc", /x*/g],
    ["sticky groups", "k=1;k=22;z=3", /k=(\d+)/g],
  ])("replaceInSlices replaces like String#replace: %s", async (_, text, pattern) => {
    const replace = (match: string) => (match.length % 2 === 0 ? `[${match}]` : match);
    expect(await replaceInSlices(text, pattern, (match) => replace(match[0]))).toBe(text.replace(pattern, replace));
  });

  it("replaceInSlices keeps concurrent scans with one expression apart, and pauses in a long one", async () => {
    const pattern = /<w:t>([^<]*)<\/w:t>/g;
    const long = "<w:t>a</w:t>".repeat(400_000);
    const short = "<w:t>b</w:t><w:t>c</w:t>";
    let pauses = 0;
    const slice = new TimeSlice();
    const pause = slice.pause.bind(slice);
    slice.pause = () => {
      pauses++;
      return pause();
    };
    const [a, b] = await Promise.all([
      replaceInSlices(long, pattern, (match) => match[1]!.toUpperCase(), slice),
      replaceInSlices(short, pattern, (match) => match[1]!),
    ]);
    expect(a).toBe("A".repeat(400_000));
    expect(b).toBe("bc");
    expect(pauses).toBeGreaterThan(0);
  });

  it("wordsIn finds a word across a window boundary, and only words that are there", async () => {
    const data = Buffer.alloc(4 * MB + 100, "x");
    data.write("instrText", 4 * MB - 4, "latin1");
    expect([...(await wordsIn(data, ["instrText", "fldSimple", "<!DOCTYPE"], new TimeSlice()))]).toEqual(["instrText"]);
  });

  it("decodeUtf8 and encodeUtf8 do not cut characters at window boundaries", async () => {
    // The first 4 MB boundary falls inside a four-byte character of the bytes, and between the two
    // halves of a surrogate pair of the string (the leading "a" shifts both).
    const text = `a${"é€𝄞".repeat(1_500_000)}end`;
    const bytes = Buffer.from(text, "utf8");
    expect(await decodeUtf8(bytes, new TimeSlice())).toBe(text);
    expect((await encodeUtf8(text, new TimeSlice())).equals(bytes)).toBe(true);
  });
});
