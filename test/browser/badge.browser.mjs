// Badges in a real browser (Debian's Chromium through playwright-core, under Node), without the
// server: the renderer's output, hostile inputs included, parses as XML, decodes as an image of
// the width it declares, draws the theme's colours, and its computed text widths match what the
// browser actually lays out.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bun = join(root, ".tools", "node_modules", ".bin", "bun");
const renderer = join(root, "src", "modules", "badge", "render.ts");

// `measure`: whether the rendered text width can be held to the computed one. Not for emoji, which
// Verdana lacks: the renderer guesses their width and the browser draws whatever font it has.
const cases = [
  { label: "trust", message: "Excellent", color: "#4c1", theme: "dark", measure: true },
  { label: "trust", message: "Not Verified", color: "#9f9f9f", theme: "light", measure: true },
  { label: "creator trust", message: "iiiiiiiiii", color: "#e05d44", theme: "dark", measure: true },
  { label: "trust", message: "WWWWWWWWWW", color: "#1f6feb", theme: "light", measure: true },
  { label: "trust", message: "Überprüft – gültig", color: "#ffff00", theme: "dark", measure: true },
  { label: "<script>alert(1)</script>", message: "<script>alert(1)</script>", color: "#fff\"/><script>alert(2)</script>", theme: "dark", measure: true },
  { label: '"><svg onload=alert(3)>', message: "'><img src=x onerror=alert(4)>", color: "red", theme: "light", title: "&amp; <title>", measure: true },
  { label: "a\u0000b\u001bc\ud800", message: "&amp;&lt;\ufffe", color: "#000", theme: "dark", measure: true },
  { label: "x".repeat(200), message: "W".repeat(200), color: "#abc", theme: "dark", measure: true },
  { label: "🛡️ trust", message: "👨‍👩‍👧 ok ✓", color: "#4c1", theme: "light", measure: false },
];

let rendered;
let browser;

before(async () => {
  // The renderer is TypeScript: Bun renders every case and hands the documents back as JSON.
  const script = `
    import { renderBadge } from ${JSON.stringify(renderer)};
    const cases = JSON.parse(await Bun.stdin.text());
    console.log(JSON.stringify(cases.map(({ measure, ...content }) => renderBadge(content))));
  `;
  const child = spawn(bun, ["-e", script], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(JSON.stringify(cases));
  const stdout = await new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`bun exited with ${code}: ${err}`))));
  });
  rendered = JSON.parse(stdout);
  assert.equal(rendered.length, cases.length);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
});

/** A blank page that records any dialog (a sign some input ran as script) and any network request. */
async function blankPage() {
  const page = await browser.newPage();
  const events = [];
  page.on("dialog", async (dialog) => {
    events.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith("data:") && !request.url().startsWith("blob:")) events.push(`request: ${request.url()}`);
  });
  await page.setContent("<!doctype html><html><body></body></html>");
  return { page, events };
}

test("every badge parses as XML: no parsererror, one svg root, no foreign elements", async () => {
  const { page, events } = await blankPage();
  const results = await page.evaluate((svgs) => {
    const allowed = new Set(["svg", "title", "linearGradient", "stop", "clipPath", "rect", "g", "text"]);
    return svgs.map((svg) => {
      const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
      const elements = [...doc.getElementsByTagName("*")];
      return {
        parserErrors: doc.getElementsByTagName("parsererror").length,
        root: doc.documentElement.localName,
        namespace: doc.documentElement.namespaceURI,
        foreign: elements.map((el) => el.localName).filter((name) => !allowed.has(name)),
        handlers: elements.flatMap((el) => [...el.attributes].map((a) => a.name)).filter((name) => /^on/i.test(name)),
        texts: [...doc.querySelectorAll("text:not([aria-hidden])")].map((el) => el.textContent),
        title: doc.querySelector("title")?.textContent,
      };
    });
  }, rendered);
  results.forEach((result, k) => {
    const name = `case ${k} (${JSON.stringify(cases[k].message).slice(0, 40)})`;
    assert.equal(result.parserErrors, 0, `${name}: parsererror`);
    assert.equal(result.root, "svg", name);
    assert.equal(result.namespace, "http://www.w3.org/2000/svg", name);
    assert.deepEqual(result.foreign, [], `${name}: only badge elements`);
    assert.deepEqual(result.handlers, [], `${name}: no event handler attributes`);
  });
  // Hostile text survives as text, exactly.
  assert.deepEqual(results[5].texts, ["<script>alert(1)</script>", "<script>alert(1)</script>"]);
  assert.deepEqual(results[6].texts, ['"><svg onload=alert(3)>', "'><img src=x onerror=alert(4)>"]);
  assert.equal(results[6].title, "&amp; <title>");
  assert.deepEqual(results[7].texts, ["abc", "&amp;&lt;"]);
  assert.deepEqual(results[8].texts, [`${"x".repeat(39)}…`, `${"W".repeat(39)}…`]);
  assert.deepEqual(events, []);
  await page.close();
});

test("every badge decodes as an image of its declared size, in the theme's colours", async () => {
  const { page, events } = await blankPage();
  const results = await page.evaluate(async (svgs) => {
    const out = [];
    for (const svg of svgs) {
      const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
      const [labelRect, messageRect] = doc.querySelectorAll("g[clip-path] > rect");
      const img = new Image();
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
      await img.decode();
      // Sample each half just inside its left edge, mid-height: padding, so no text over it.
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(img, 0, 0);
      const pixel = (x) => [...ctx.getImageData(x, 10, 1, 1).data.slice(0, 3)];
      const labelWidth = Number(labelRect.getAttribute("width"));
      out.push({
        declared: [Number(doc.documentElement.getAttribute("width")), Number(doc.documentElement.getAttribute("height"))],
        natural: [img.naturalWidth, img.naturalHeight],
        labelFill: labelRect.getAttribute("fill"),
        messageFill: messageRect.getAttribute("fill"),
        labelPixel: labelWidth > 0 ? pixel(2) : null,
        messagePixel: pixel(labelWidth + 2),
      });
    }
    return out;
  }, rendered);
  const rgb = (hex) => {
    const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (d) => d + d) : hex;
    return [1, 3, 5].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  };
  // The gradient overlay shifts colours a little; 24 of 255 per channel allows for it.
  const near = (actual, hex, what) =>
    assert.ok(actual.every((v, i) => Math.abs(v - rgb(hex)[i]) <= 24), `${what}: drew ${actual} for ${hex}`);
  results.forEach((result, k) => {
    const name = `case ${k}`;
    assert.ok(result.declared[0] > 0, name);
    assert.deepEqual(result.natural, result.declared, `${name}: decoded size equals the width/height attributes`);
    assert.equal(result.labelFill, cases[k].theme === "light" ? "#e6e6e6" : "#555", `${name}: theme label background`);
    near(result.labelPixel, result.labelFill, `${name} label`);
    near(result.messagePixel, result.messageFill, `${name} message`);
  });
  // Invalid colours were replaced by the neutral grey.
  assert.equal(results[5].messageFill, "#9f9f9f");
  assert.equal(results[6].messageFill, "#9f9f9f");
  assert.deepEqual(events, []);
  await page.close();
});

test("rendered text widths match the computed ones", async () => {
  const { page, events } = await blankPage();
  const results = await page.evaluate((svgs) => {
    return svgs.map((svg) => {
      const host = document.createElement("div");
      // The HTML parser is how a badge pasted into a page is read: it must stay inert text there too.
      host.innerHTML = svg;
      document.body.append(host);
      const texts = [...host.querySelectorAll("text:not([aria-hidden])")];
      const measured = texts.map((text) => {
        const computed = Number(text.getAttribute("textLength"));
        const fitted = text.getBBox().width;
        // The browser's own width for the text, before textLength stretches or squeezes it.
        text.removeAttribute("textLength");
        const natural = text.getComputedTextLength();
        text.setAttribute("textLength", String(computed));
        return { text: text.textContent, computed, fitted, natural };
      });
      const fonts = getComputedStyle(texts[0]).fontFamily;
      const result = { measured, fonts, scripts: host.querySelectorAll("script").length };
      host.remove();
      return result;
    });
  }, rendered);
  results.forEach((result, k) => {
    assert.equal(result.scripts, 0, `case ${k}: no script element`);
    for (const { text, computed, fitted, natural } of result.measured) {
      const name = `case ${k} ${JSON.stringify(text)}`;
      assert.ok(computed > 0, name);
      // textLength makes every renderer draw the text exactly as wide as the layout assumed.
      assert.ok(Math.abs(fitted - computed) <= 1, `${name}: drawn ${fitted} px, computed ${computed} px`);
      if (cases[k].measure) {
        // Without it, the browser's real font (DejaVu Sans where Verdana is missing) is within 15 %.
        const ratio = natural / computed;
        assert.ok(ratio > 0.85 && ratio < 1.15, `${name}: natural ${natural.toFixed(1)} px vs computed ${computed} px`);
      }
    }
  });
  assert.deepEqual(events, []);
  await page.close();
});
