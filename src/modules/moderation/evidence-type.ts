// What an uploaded evidence file is, judged by its leading bytes and never by the Content-Type its
// sender chose (docs/moderation.md, "Evidence"): staff open these files in a browser, so an HTML
// page sent as `image/png` or `text/plain` must not get in under that name. The HTML patterns are
// the WHATWG MIME sniffing standard's ("identifying a resource with an unknown MIME type"), plus
// SVG, which is a scriptable document too.
import type { EvidenceType } from "../../domain";

/** Binary formats by their signature: `null` in a signature matches any byte (RIFF's length). */
const SIGNATURES: Array<{ type: EvidenceType; bytes: Array<number | null> }> = [
  { type: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { type: "image/gif", bytes: [...ascii("GIF87a")] },
  { type: "image/gif", bytes: [...ascii("GIF89a")] },
  { type: "image/webp", bytes: [...ascii("RIFF"), null, null, null, null, ...ascii("WEBP")] },
  { type: "application/pdf", bytes: [...ascii("%PDF-")] },
];

/** Leading bytes of other binary formats a text file must not start with (archives, executables, media). */
const OTHER_BINARY: number[][] = [
  [0x50, 0x4b, 0x03, 0x04], // zip, docx, jar
  [0x1f, 0x8b], // gzip
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // Windows executable
  [...ascii("Rar!")],
  [0x37, 0x7a, 0xbc, 0xaf], // 7z
  [0x00, 0x00, 0x01, 0x00], // icon
  [...ascii("BM")], // bitmap
  [0x25, 0x21], // PostScript "%!"
];

/** Tags that make a browser read a file as HTML, each followed by a space or `>` (the standard's list). */
const HTML_TAGS = ["!doctype html", "html", "head", "script", "iframe", "h1", "div", "font", "table", "a", "style", "title", "b", "body", "br", "p", "svg"];

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

function startsWith(bytes: Uint8Array, signature: Array<number | null>, at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((b, i) => b === null || bytes[at + i] === b);
}

/** The binary type the signature names, or null. */
export function binaryTypeOf(bytes: Uint8Array): EvidenceType | null {
  return SIGNATURES.find((s) => startsWith(bytes, s.bytes))?.type ?? null;
}

/** True when a browser would take the bytes for HTML or XML: a known tag, a comment or `<?xml` after leading whitespace (and a BOM). */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  let at = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0c || bytes[at] === 0x0d)) at++;
  if (bytes[at] !== 0x3c) return false;
  const head = Buffer.from(bytes.subarray(at + 1, at + 1 + 16)).toString("latin1").toLowerCase();
  if (head.startsWith("!--") || head.startsWith("?xml")) return true;
  return HTML_TAGS.some((tag) => head.startsWith(tag) && (head.length === tag.length || head[tag.length] === " " || head[tag.length] === ">"));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isPlainText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  if (OTHER_BINARY.some((signature) => startsWith(bytes, signature))) return false;
  try {
    strictUtf8.decode(bytes);
  } catch {
    return false;
  }
  return true;
}

/**
 * Why the file is not what `declared` says (a sentence for the 415), or null when its leading
 * bytes agree: an image or a PDF by its signature, text as valid UTF-8 without NUL bytes that
 * starts like no binary format and no markup.
 */
export function evidenceMismatch(declared: EvidenceType, bytes: Uint8Array): string | null {
  const sniffed = binaryTypeOf(bytes);
  if (declared !== "text/plain") {
    if (sniffed === declared) return null;
    const what = sniffed ?? (looksLikeMarkup(bytes) ? "HTML or XML" : "something else");
    return `The file was sent as ${declared}, but its leading bytes say ${what}.`;
  }
  if (sniffed !== null) return `The file was sent as text/plain, but its leading bytes say ${sniffed}.`;
  if (looksLikeMarkup(bytes)) return "The file was sent as text/plain, but it starts like an HTML or XML document.";
  if (!isPlainText(bytes)) return "The file was sent as text/plain, but it is not UTF-8 text (binary bytes, or a NUL).";
  return null;
}
