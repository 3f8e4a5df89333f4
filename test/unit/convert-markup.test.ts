import { describe, expect, it } from "vitest";
import { markdownToHtml, sanitizeHtml } from "#domain/documents/markup.ts";

describe("sanitizeHtml", () => {
  it("keeps structure and formatting", () => {
    const html = sanitizeHtml('<h1 style="color:red">Title</h1><table><tr><td colspan="2">a</td></tr></table><ol><li>one</li></ol>');
    expect(html).toContain('<h1 style="color:red">Title</h1>');
    expect(html).toContain('<td colspan="2">a</td>');
    expect(html).toContain("<ol><li>one</li></ol>");
    expect(html).toContain('<meta charset="utf-8">');
  });

  const unsafe: Array<[string, string]> = [
    ["script", "<p>x<script>fetch('http://evil')</script></p>"],
    ["remote image", '<img src="http://evil.example/x.png">'],
    ["protocol-relative image", '<img src="//evil.example/x.png">'],
    ["stylesheet link", '<link rel="stylesheet" href="http://evil.example/x.css">'],
    ["style element", "<style>@import url(http://evil.example/x.css);</style>"],
    ["css url", '<p style="background:url(http://evil.example/x.png)">x</p>'],
    ["background attribute", '<table background="http://evil.example/x.png"><tr><td>x</td></tr></table>'],
    ["iframe", '<iframe src="http://evil.example/"></iframe>'],
    ["object", '<object data="http://evil.example/x.swf"></object>'],
    ["svg image", '<svg><image href="http://evil.example/x.png"/></svg>'],
    ["javascript link", '<a href="javascript:alert(1)">x</a>'],
    ["meta refresh", '<meta http-equiv="refresh" content="0;url=http://evil.example/">'],
    ["entity-encoded url", '<img src="&#104;ttp://evil.example/x.png">'],
    ["mixed-case javascript link", '<a href=" JaVaScRiPt:alert(1)">x</a>'],
    ["css import in style attribute", "<p style=\"@import 'http://evil.example/x.css'\">x</p>"],
    ["svg inside an allowed tag", '<div><svg><use href="http://evil.example/#x"/></svg></div>'],
  ];
  it.each(unsafe)("removes anything that would fetch: %s", (_name, input) => {
    const html = sanitizeHtml(input);
    expect(html).not.toMatch(/evil\.example|javascript:|<script|<style|<iframe|<object|<svg|<link/i);
  });

  it("keeps data-URI images and safe links, and the alt text of dropped images", () => {
    const html = sanitizeHtml('<img src="data:image/png;base64,iVBORw0KGgo="><img src="http://x/y.png" alt="logo"><a href="https://example.com">site</a>');
    expect(html).toMatch(/<img src="data:image\/png;base64,iVBORw0KGgo=" ?\/?>/);
    expect(html).toContain("[logo]");
    expect(html).toContain('<a href="https://example.com">site</a>');
  });

  it("drops data: links and non-raster data images", () => {
    const html = sanitizeHtml('<a href="data:text/html;base64,PHNjcmlwdD4=">x</a><img src="data:image/svg+xml;base64,PHN2Zz4=">');
    expect(html).not.toMatch(/data:text|svg\+xml|<img/);
    expect(html).toContain(">x</a>");
  });

  it("escapes text and closes what is left open", () => {
    expect(sanitizeHtml("<p><b>a &lt;b&gt; &amp; c")).toContain("<p><b>a &lt;b&gt; &amp; c</b></p>");
  });
});

describe("markdownToHtml", () => {
  it("renders headings, lists, tables and emphasis", () => {
    const html = markdownToHtml("# Title\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n**bold** and ~~gone~~\n");
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toMatch(/<ol>\s*<li>one<\/li>/);
    expect(html).toMatch(/<th>a<\/th>\s*<th>b<\/th>/);
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<del>gone</del>");
  });

  it("shows raw HTML as text and never links a remote image", () => {
    const html = markdownToHtml('<script>alert(1)</script>\n\n![chart](http://evil.example/c.png) <img src="http://evil.example/i.png">');
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("[chart]");
    expect(html).not.toMatch(/<img[^>]*src="http/);
  });
});
