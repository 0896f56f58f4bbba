// Shields-style "flat" SVG badges (label on the left, message on a coloured right half), as a pure
// function of their content so the route only picks the words and colour.
//
// Widths are real: each character's advance width in Verdana 11px, the font the SVG names first,
// taken from the table shields.io itself uses (the `anafanafo` package). Only that one table is
// imported, not the package entry, which would also pull its three other fonts into the compiled
// binary. Each text also carries `textLength`, so a renderer that falls back to another font
// (DejaVu Sans on most Linux machines) still fits it into exactly the computed box.
//
// Everything that reaches the document is cleaned first: characters XML 1.0 forbids are dropped,
// markup characters are escaped and the colour must be a hex colour, so any input yields a
// well-formed SVG that shows it as text.
import verdana11 from "anafanafo/data/verdana-11px-normal.json";

export type BadgeTheme = "light" | "dark";

export interface BadgeContent {
  label: string;
  message: string;
  /** `#rgb` or `#rrggbb` of the message side; anything else becomes neutral grey. */
  color: string;
  theme: BadgeTheme;
  /** Tooltip and accessible name; defaults to "label: message". */
  title?: string;
}

const HEIGHT = 20;
/** Space either side of each text, as in shields' flat style. */
const PADDING = 5;
const FONT_FAMILY = "Verdana,Geneva,DejaVu Sans,sans-serif";
const FONT_SIZE = 11;
/** Longest label or message, counted in user-perceived characters including the ellipsis. */
const MAX_TEXT = 40;
/** The title is not drawn, so it may be longer, but is still bounded. */
const MAX_TITLE = 200;
const FALLBACK_COLOR = "#9f9f9f";
const DARK_TEXT = "#333";
const LIGHT_TEXT = "#fff";

interface Palette {
  labelBackground: string;
  labelText: string;
  /** Shadow behind the label text, or null for none. */
  labelShadow: string | null;
  /** Whether dark message text gets a light shadow too (white text always gets a dark one). */
  shadowDarkMessage: boolean;
}

const PALETTES: Record<BadgeTheme, Palette> = {
  // The classic shields look.
  dark: { labelBackground: "#555", labelText: LIGHT_TEXT, labelShadow: "#010101", shadowDarkMessage: true },
  // For light pages: a shadow under dark text on a pale ground reads as blur, so none there.
  light: { labelBackground: "#e6e6e6", labelText: DARK_TEXT, labelShadow: null, shadowDarkMessage: false },
};

// [first code point, last code point, width in px] ranges, sorted, as anafanafo ships them.
const RANGES = verdana11 as [number, number, number][];

function lookup(codePoint: number): number | undefined {
  let lo = 0;
  let hi = RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last, width] = RANGES[mid];
    if (codePoint < first) hi = mid - 1;
    else if (codePoint > last) lo = mid + 1;
    else return width;
  }
  return undefined;
}

/** anafanafo's guess for characters Verdana lacks (the fallback font draws them): the width of "m". */
const EM_WIDTH = lookup(0x6d) ?? 10.7;

/** Width in px of `text` in Verdana 11px; control characters are zero-width, as they draw nothing. */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    if (codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f)) continue;
    width += lookup(codePoint) ?? EM_WIDTH;
  }
  return width;
}

// Everything outside XML 1.0's Char production (with the u flag a lone surrogate is one code point
// and matches), plus DEL and the C1 controls, which XML allows but which draw nothing.
const NOT_TEXT = /[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The text as it will be drawn: legal XML characters only, whitespace collapsed the way SVG collapses
 * it (so the measured text is the drawn text), at most `max` characters. Cutting between graphemes
 * never splits an emoji or a letter from its accent.
 */
function clean(text: string, max: number): string {
  const plain = text.replace(NOT_TEXT, "").replace(/[\t\n\r ]+/g, " ").trim();
  if (plain.length <= max) return plain; // UTF-16 length bounds the grapheme count
  const parts = Array.from(graphemes.segment(plain), (s) => s.segment);
  if (parts.length <= max) return plain;
  return `${parts.slice(0, max - 1).join("").trimEnd()}…`;
}

/** A label or message as the badge draws it (clean, at most MAX_TEXT characters). */
export function badgeText(text: string): string {
  return clean(text, MAX_TEXT);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Safe in both text content and double-quoted attribute values. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Expands and lowercases a `#rgb`/`#rrggbb` colour; anything else is the neutral grey. */
function normalizeColor(color: unknown): string {
  if (typeof color !== "string" || !/^#(?:[0-9a-f]{3}){1,2}$/i.test(color)) return FALLBACK_COLOR;
  const hex = color.length === 4 ? color.replace(/[0-9a-f]/gi, (d) => d + d) : color;
  return hex.toLowerCase();
}

/** WCAG relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Whichever of white and #333 contrasts more with the background (WCAG contrast ratio). */
function textColorOn(background: string): string {
  const l = luminance(background);
  const dark = luminance("#333333");
  return (1 + 0.05) / (l + 0.05) >= (l + 0.05) / (dark + 0.05) ? LIGHT_TEXT : DARK_TEXT;
}

/** Short decimal for coordinates: 49.63 → "49.6", 50 → "50". */
function num(n: number): string {
  return String(Math.round(n * 10) / 10);
}

interface Part {
  text: string;
  /** Computed width of the text itself, also written as its textLength. */
  textLength: number;
  /** Width of the part's box: text plus padding, whole pixels. */
  width: number;
}

function part(text: string): Part {
  if (text === "") return { text, textLength: 0, width: 0 };
  const textLength = Math.round(textWidth(text) * 10) / 10;
  return { text, textLength, width: Math.ceil(textLength) + 2 * PADDING };
}

function drawText(p: Part, centre: number, fill: string, shadow: string | null): string {
  if (p.text === "") return "";
  const common = `x="${num(centre)}" textLength="${num(p.textLength)}"`;
  const body = escapeXml(p.text);
  // The shadow is a copy one pixel lower, hidden from assistive technology so the text is read once.
  const under = shadow
    ? `<text aria-hidden="true" ${common} y="15" fill="${shadow}" fill-opacity=".3">${body}</text>`
    : "";
  return `${under}<text ${common} y="14" fill="${fill}">${body}</text>`;
}

/** The complete SVG document for one badge. */
export function renderBadge(content: BadgeContent): string {
  const palette = PALETTES[content.theme] ?? PALETTES.dark;
  const color = normalizeColor(content.color);
  const label = part(clean(content.label, MAX_TEXT));
  // A badge always has a message box, even an empty one, so it never collapses to nothing.
  const messageText = clean(content.message, MAX_TEXT);
  const message = messageText === "" ? { text: "", textLength: 0, width: 2 * PADDING } : part(messageText);
  const width = label.width + message.width;

  const defaultTitle = label.text === "" ? message.text : `${label.text}: ${message.text}`;
  const title = escapeXml(content.title === undefined ? defaultTitle : clean(content.title, MAX_TITLE) || defaultTitle);

  const messageFill = textColorOn(color);
  const messageShadow = messageFill === LIGHT_TEXT ? "#010101" : palette.shadowDarkMessage ? "#ccc" : null;
  // Ids carry the width: inlined into one page, badges then share a clip path only when it is the same.
  const clip = `badge-r${width}`;
  const gradient = "badge-s";

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<linearGradient id="${gradient}" x2="0" y2="100%">` +
    `<stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/>` +
    `</linearGradient>` +
    `<clipPath id="${clip}"><rect width="${width}" height="${HEIGHT}" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#${clip})">` +
    `<rect width="${label.width}" height="${HEIGHT}" fill="${palette.labelBackground}"/>` +
    `<rect x="${label.width}" width="${message.width}" height="${HEIGHT}" fill="${color}"/>` +
    `<rect width="${width}" height="${HEIGHT}" fill="url(#${gradient})"/>` +
    `</g>` +
    `<g text-anchor="middle" font-family="${FONT_FAMILY}" text-rendering="geometricPrecision" font-size="${FONT_SIZE}">` +
    drawText(label, label.width / 2, palette.labelText, palette.labelShadow) +
    drawText(message, label.width + message.width / 2, messageFill, messageShadow) +
    `</g>` +
    `</svg>`
  );
}
