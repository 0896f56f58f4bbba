// The badge renderer: widths come from real Verdana metrics and add up, both themes look as they
// should, and no input (markup, entities, control characters, emoji, very long text, bad colours)
// can make the SVG malformed or smuggle markup into it. Well-formedness is checked by a small strict
// XML parser below, so the test needs no DOM; the browser test parses the same output in Chromium.
import { describe, expect, test } from "bun:test";
import { type BadgeContent, renderBadge, textWidth } from "../../src/modules/badge/render";
import { mulberry32 } from "../seeded";

// ---------------------------------------------------------------------------------------------
// A strict parser for the XML subset an SVG badge may use: elements, attributes and text. Anything
// else (comments, CDATA, doctype, processing instructions) is an error, as is any character XML 1.0
// forbids, a raw `<` or a bare `&` in text or an attribute, an unquoted or repeated attribute, or
// unbalanced tags. It returns the tree with entity references decoded.

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

const NAME = /[A-Za-z_:][A-Za-z0-9_.:-]*/y;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/y;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const XML_CHARS = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

function parseXml(doc: string): XmlElement {
  if (!XML_CHARS.test(doc)) throw new Error("character not allowed in XML 1.0");
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${i}: ${JSON.stringify(doc.slice(Math.max(0, i - 20), i + 20))}`);
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(doc);
    if (!m) return fail("expected a name");
    i += m[0].length;
    return m[0];
  };
  const spaces = (): boolean => {
    const start = i;
    while (/[ \t\r\n]/.test(doc[i] ?? "")) i++;
    return i > start;
  };
  /** Character data up to `stop` (exclusive), entity references decoded. */
  const chars = (stop: string): string => {
    let out = "";
    while (i < doc.length && !stop.includes(doc[i])) {
      if (doc[i] === "<") fail("raw < in character data");
      if (doc.startsWith("]]>", i)) fail("]]> outside CDATA");
      if (doc[i] === "&") {
        ENTITY.lastIndex = i;
        const m = ENTITY.exec(doc) ?? fail("bare & (not an entity reference)");
        const code = m[2] ? Number.parseInt(m[2], 10) : m[3] ? Number.parseInt(m[3], 16) : -1;
        if (code >= 0 && !XML_CHARS.test(String.fromCodePoint(code))) fail("character reference to a non-XML character");
        out += m[1] ? NAMED[m[1]] : String.fromCodePoint(code);
        i += m[0].length;
      } else {
        out += doc[i++];
      }
    }
    return out;
  };
  const element = (): XmlElement => {
    if (doc[i] !== "<") fail("expected <");
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [] };
    for (;;) {
      const spaced = spaces();
      if (doc.startsWith("/>", i)) {
        i += 2;
        return el;
      }
      if (doc[i] === ">") {
        i++;
        break;
      }
      if (!spaced) fail("attributes must be separated by whitespace");
      const attr = name();
      if (attr in el.attrs) fail(`repeated attribute ${attr}`);
      spaces();
      if (doc[i] !== "=") fail("expected =");
      i++;
      spaces();
      const quote = doc[i];
      if (quote !== '"' && quote !== "'") fail("attribute value not quoted");
      i++;
      el.attrs[attr] = chars(quote);
      if (doc[i] !== quote) fail("unterminated attribute value");
      i++;
    }
    for (;;) {
      if (i >= doc.length) fail(`<${el.name}> never closed`);
      if (doc.startsWith("</", i)) {
        i += 2;
        const closing = name();
        if (closing !== el.name) fail(`</${closing}> closes <${el.name}>`);
        spaces();
        if (doc[i] !== ">") fail("expected >");
        i++;
        return el;
      }
      if (doc.startsWith("<!", i) || doc.startsWith("<?", i)) fail("only elements and text are expected");
      if (doc[i] === "<") el.children.push(element());
      else {
        el.children.push(chars("<"));
      }
    }
  };
  spaces();
  const root = element();
  spaces();
  if (i !== doc.length) fail("content after the root element");
  return root;
}

function all(el: XmlElement, name: string): XmlElement[] {
  const found = el.name === name ? [el] : [];
  for (const child of el.children) if (typeof child !== "string") found.push(...all(child, name));
  return found;
}

function elements(el: XmlElement): XmlElement[] {
  return [el, ...el.children.flatMap((c) => (typeof c === "string" ? [] : elements(c)))];
}

function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === "string" ? c : textOf(c))).join("");
}

/** Renders and parses; every test goes through the strict parser. */
function badge(overrides: Partial<BadgeContent> = {}) {
  const svg = renderBadge({ label: "trust", message: "Excellent", color: "#4c1", theme: "dark", ...overrides });
  const root = parseXml(svg);
  const [labelRect, messageRect] = all(root, "g")
    .find((g) => g.attrs["clip-path"])!
    .children.filter((c): c is XmlElement => typeof c !== "string");
  const texts = all(root, "text");
  const drawn = texts.filter((t) => t.attrs["aria-hidden"] !== "true");
  return { svg, root, labelRect, messageRect, texts, drawn, title: textOf(all(root, "title")[0]) };
}

const ELEMENTS = new Set(["svg", "title", "linearGradient", "stop", "clipPath", "rect", "g", "text"]);

// ---------------------------------------------------------------------------------------------

describe("textWidth", () => {
  test("uses Verdana 11px advance widths", () => {
    // Shields' own figures for these strings (anafanafo, "11px Verdana").
    expect(textWidth("Not Verified")).toBeCloseTo(65.18, 2);
    expect(textWidth("Excellent")).toBeCloseTo(49.63, 2);
    expect(textWidth("iii")).toBeCloseTo(9.06, 2);
    expect(textWidth("WWW")).toBeCloseTo(32.64, 2);
    expect(textWidth("")).toBe(0);
  });

  test("grows with the text and differs per character", () => {
    const words = ["N", "No", "Not", "Not ", "Not V", "Not Verified"];
    for (let k = 1; k < words.length; k++) expect(textWidth(words[k])).toBeGreaterThan(textWidth(words[k - 1]));
    expect(textWidth("WWW")).toBeGreaterThan(3 * textWidth("iii"));
    expect(textWidth("Not Verified")).toBeGreaterThan(textWidth("Excellent"));
    const distinct = new Set(["i", "l", "r", "a", "m", "W", " ", "0"].map(textWidth));
    expect(distinct.size).toBeGreaterThanOrEqual(6);
  });

  test("characters outside the table get a guess, control characters nothing", () => {
    expect(textWidth("😀")).toBeCloseTo(textWidth("m"), 5);
    expect(textWidth("a\u0000\u001fb")).toBe(textWidth("ab"));
    expect(textWidth("日本")).toBeGreaterThan(0);
  });
});

describe("layout", () => {
  test("total width is the label part plus the message part, each the text plus padding", () => {
    for (const [label, message] of [["trust", "Excellent"], ["trust", "Not Verified"], ["creator trust", "iii"], ["x", "WWW"]]) {
      const b = badge({ label, message });
      const [labelWidth, messageWidth] = [Number(b.labelRect.attrs.width), Number(b.messageRect.attrs.width)];
      expect(Number(b.root.attrs.width)).toBe(labelWidth + messageWidth);
      expect(Number(b.messageRect.attrs.x)).toBe(labelWidth);
      expect(labelWidth).toBe(Math.ceil(Math.round(textWidth(label) * 10) / 10) + 10);
      expect(messageWidth).toBe(Math.ceil(Math.round(textWidth(message) * 10) / 10) + 10);
      // textLength pins each text to its computed width; it is centred in its half.
      const [labelText, messageText] = b.drawn;
      expect(Number(labelText.attrs.textLength)).toBeCloseTo(textWidth(label), 1);
      expect(Number(messageText.attrs.textLength)).toBeCloseTo(textWidth(message), 1);
      expect(Number(labelText.attrs.x)).toBeCloseTo(labelWidth / 2, 1);
      expect(Number(messageText.attrs.x)).toBeCloseTo(labelWidth + messageWidth / 2, 1);
    }
  });

  test("wider text makes a wider badge", () => {
    const width = (message: string) => Number(badge({ message }).root.attrs.width);
    expect(width("Not Verified")).toBeGreaterThan(width("Excellent"));
    expect(width("WWW")).toBeGreaterThan(width("iii"));
  });

  test("is a complete, accessible SVG document", () => {
    const b = badge();
    expect(b.root.name).toBe("svg");
    expect(b.root.attrs.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(b.root.attrs.height).toBe("20");
    expect(b.root.attrs.role).toBe("img");
    expect(b.root.attrs["aria-label"]).toBe("trust: Excellent");
    expect(b.title).toBe("trust: Excellent");
    expect(all(b.root, "linearGradient")).toHaveLength(1);
    expect(all(b.root, "clipPath")[0].children[0]).toMatchObject({ name: "rect", attrs: { rx: "3" } });
    expect(all(b.root, "g")[1].attrs["font-family"]).toBe("Verdana,Geneva,DejaVu Sans,sans-serif");
    expect(all(b.root, "g")[1].attrs["font-size"]).toBe("11");
    expect(b.drawn.map(textOf)).toEqual(["trust", "Excellent"]);
    // Each drawn text has a shadow copy in the dark theme, hidden from screen readers.
    expect(b.texts).toHaveLength(4);
  });

  test("a given title replaces the default one", () => {
    const b = badge({ title: "Creator trust band for @someone" });
    expect(b.title).toBe("Creator trust band for @someone");
    expect(b.root.attrs["aria-label"]).toBe("Creator trust band for @someone");
    expect(badge({ title: "\u0000 " }).title).toBe("trust: Excellent");
  });

  test("an empty label leaves only the message", () => {
    const b = badge({ label: "" });
    expect(b.labelRect.attrs.width).toBe("0");
    expect(b.drawn.map(textOf)).toEqual(["Excellent"]);
    expect(b.title).toBe("Excellent");
  });
});

describe("themes", () => {
  test("dark: the classic grey label with white, shadowed text", () => {
    const b = badge({ theme: "dark" });
    expect(b.labelRect.attrs.fill).toBe("#555");
    expect(b.drawn[0].attrs.fill).toBe("#fff");
    expect(b.texts.filter((t) => t.attrs["aria-hidden"] === "true").map(textOf)).toContain("trust");
  });

  test("light: a pale label with dark text and no label shadow", () => {
    const b = badge({ theme: "light" });
    expect(b.labelRect.attrs.fill).toBe("#e6e6e6");
    expect(b.drawn[0].attrs.fill).toBe("#333");
    expect(b.texts.filter((t) => t.attrs["aria-hidden"] === "true").map(textOf)).not.toContain("trust");
    expect(b.svg).not.toBe(badge({ theme: "dark" }).svg);
  });

  test("the message side has the colour and text readable on it", () => {
    for (const theme of ["dark", "light"] as const) {
      for (const [color, fill] of [["#000080", "#fff"], ["#e05d44", "#fff"], ["#555555", "#fff"], ["#ffff00", "#333"], ["#e6e6e6", "#333"], ["#4c1", "#333"]]) {
        const b = badge({ theme, color });
        expect(b.messageRect.attrs.fill).toBe(color.length === 4 ? "#44cc11" : color);
        expect(b.drawn[1].attrs.fill).toBe(fill);
      }
    }
  });
});

describe("colour", () => {
  test("#rgb is expanded and hex is lowercased", () => {
    expect(badge({ color: "#ABC" }).messageRect.attrs.fill).toBe("#aabbcc");
    expect(badge({ color: "#1F6FEB" }).messageRect.attrs.fill).toBe("#1f6feb");
  });

  test("anything else becomes neutral grey and cannot inject markup", () => {
    const bad = ["red", "", "#12345", "#1234567", "#ggg", "abc", "#fff\"/><script>x</script>", "url(#x)", " #fff", "#fff "];
    for (const color of [...bad, undefined as unknown as string, 42 as unknown as string]) {
      const b = badge({ color });
      expect(b.messageRect.attrs.fill).toBe("#9f9f9f");
      expect(b.svg).not.toContain("<script");
    }
  });
});

describe("hostile text", () => {
  const hostile = [
    "<script>alert(1)</script>",
    '"><svg onload=x>',
    "'><svg onload='x'>",
    "&amp;",
    "&lt;&#60;&#x3c;&",
    "]]><![CDATA[",
    "<!-- -->",
    "<?xml version=\"1.0\"?>",
    "a\u0000b\u0007c\u001bd\u007fe\u0085f",
    "lone \ud800 high \udfff low",
    "not chars \ufffe\uffff",
    "🛡️ trusted 👨‍👩‍👧 ✓",
    "x".repeat(200),
    "<".repeat(200),
  ];

  test("stays text: escaped in the document, exactly itself once parsed", () => {
    for (const input of hostile) {
      for (const field of ["label", "message", "title"] as const) {
        const b = badge({ [field]: input });
        expect(b.svg).not.toContain("<script");
        expect(b.svg).not.toContain("<svg onload");
        expect(b.svg).not.toContain("<!");
        expect(b.svg).not.toContain("<?");
        const names = elements(b.root).map((el) => el.name);
        expect(names.filter((n) => !ELEMENTS.has(n))).toEqual([]);
        expect(names.filter((n) => n === "svg")).toHaveLength(1);
        expect(Object.keys(b.root.attrs).sort()).toEqual(["aria-label", "height", "role", "width", "xmlns"]);
        const shown = field === "title" ? b.title : textOf(b.drawn[field === "label" ? 0 : 1]);
        expect(shown.isWellFormed()).toBe(true);
        if (input.length <= 40 && !/[\u0000-\u001f\u007f-\u009f\ud800-\udfff\ufffe\uffff]/u.test(input)) {
          expect(shown).toBe(input); // nothing lost, nothing added
        }
      }
    }
  });

  test("markup characters are escaped, not dropped", () => {
    const b = badge({ message: "<script>alert(1)</script>" });
    expect(b.svg).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(badge({ message: "&amp;" }).svg).toContain(">&amp;amp;</text>");
    expect(badge({ label: `"'` }).svg).toContain("&quot;&apos;");
    expect(badge({ label: `"'` }).root.attrs["aria-label"]).toBe(`"': Excellent`);
  });

  test("characters XML forbids are removed; whitespace is collapsed as SVG draws it", () => {
    expect(textOf(badge({ message: "a\u0000b\u0007c\u001bd\u007fe\u0085f" }).drawn[1])).toBe("abcdef");
    expect(textOf(badge({ message: "lone \ud800 high \udfff low" }).drawn[1])).toBe("lone high low");
    expect(textOf(badge({ message: "x\ufffe\uffffy" }).drawn[1])).toBe("xy");
    expect(textOf(badge({ message: "  two\t\n\r words  " }).drawn[1])).toBe("two words");
  });

  test("long text is cut to 40 characters with an ellipsis, before measuring", () => {
    const b = badge({ message: "x".repeat(200), label: "W".repeat(41) });
    expect(textOf(b.drawn[1])).toBe(`${"x".repeat(39)}…`);
    expect(textOf(b.drawn[0])).toBe(`${"W".repeat(39)}…`);
    expect(Number(b.drawn[1].attrs.textLength)).toBeCloseTo(textWidth(`${"x".repeat(39)}…`), 1);
    expect(textOf(badge({ message: "W".repeat(40) }).drawn[1])).toBe("W".repeat(40));
    // Emoji are cut between graphemes, never through a surrogate pair or a ZWJ sequence.
    const family = "👨‍👩‍👧";
    const cut = textOf(badge({ message: family.repeat(50) }).drawn[1]);
    expect(cut).toBe(`${family.repeat(39)}…`);
    expect(cut.isWellFormed()).toBe(true);
  });

  test("random input always yields a well-formed badge whose parts add up", () => {
    // Seeded, so a failure is reproducible.
    const random = mulberry32(0x5eed);
    const pool = ["<", ">", "&", '"', "'", ";", "#", "x", " ", "\n", "\u0000", "\u001b", "é", "😀", "\u200d", "\ufffe", "]]>", "&amp;", "<svg"];
    const piece = () => (random() < 0.2 ? String.fromCharCode(Math.floor(random() * 0x10000)) : pool[Math.floor(random() * pool.length)]);
    const text = () => Array.from({ length: Math.floor(random() * 60) }, piece).join("");
    for (let n = 0; n < 500; n++) {
      const b = badge({ label: text(), message: text(), title: random() < 0.5 ? text() : undefined, theme: random() < 0.5 ? "dark" : "light" });
      expect(Number(b.root.attrs.width)).toBe(Number(b.labelRect.attrs.width) + Number(b.messageRect.attrs.width));
      expect(elements(b.root).filter((el) => !ELEMENTS.has(el.name))).toEqual([]);
      expect(b.svg.split("<svg")).toHaveLength(2);
    }
  });
});

describe("the checker itself", () => {
  test("rejects what the renderer must never produce", () => {
    const bad = [
      "<svg><text>a < b</text></svg>",
      "<svg><text>a & b</text></svg>",
      "<svg><text>&nbsp;</text></svg>",
      '<svg a="1" a="2"/>',
      "<svg a=1/>",
      '<svg a="<"/>',
      "<svg><g></svg>",
      "<svg></svg><svg></svg>",
      "<svg>\u0001</svg>",
      "<svg>&#1;</svg>",
      "<svg><!-- x --></svg>",
      "<svg>]]></svg>",
    ];
    for (const doc of bad) expect(() => parseXml(doc)).toThrow();
    expect(parseXml(`<svg a="&amp;&#60;&#x3e;"><t>x &apos;</t></svg>`)).toEqual({
      name: "svg",
      attrs: { a: "&<>" },
      children: [{ name: "t", attrs: {}, children: ["x '"] }],
    });
  });
});
