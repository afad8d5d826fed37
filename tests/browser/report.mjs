// The report in a real browser (tests/report.rs writes the plan and runs this): Debian's chromium, headless,
// driven by the lockfile-pinned playwright-core (no browser download). For every page of the plan it checks
// that the page loads from file:// with no console error, no page error and no request for anything but the
// report's own files; that its pictures are there; that the search box hides exactly the rows that do not
// match (a full-width query finds the half-width text: NFKC folding); that `#q=` fills the box; that a
// picture's item links to its row; and it saves the requested screenshots.
//
// Usage: node report.mjs plan.json   (prints one JSON line per page; exit 1 on any failure)
import { readFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { chromium } from "playwright-core";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const failures = [];
const fail = (page, what) => failures.push(`${page}: ${what}`);

const browser = await chromium.launch({
  executablePath: plan.chromium,
  headless: true,
  // The flags that work on this machine's closed network (docs: /work/.library/env/machines/rust.md).
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
  ],
});
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
  for (const p of plan.pages) {
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(`console ${m.type()}: ${m.text()}`); });
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
    page.on("request", (r) => {
      const u = r.url();
      if (!u.startsWith("file://") && !u.startsWith("data:") && !u.startsWith("about:")) errors.push(`external request: ${u}`);
    });
    const response = await page.goto(p.url, { waitUntil: "load" });
    if (!response || !response.ok()) fail(p.name, `did not load (${response && response.status()})`);
    const result = { name: p.name };
    result.svgItems = await page.locator("svg.view .item").count();
    if (p.min_svg_items !== undefined && result.svgItems < p.min_svg_items) {
      fail(p.name, `${result.svgItems} picture items, expected at least ${p.min_svg_items}`);
    }
    for (const s of p.search || []) {
      await page.fill("#q", s.query);
      const visible = await page.locator("[data-search]:not([hidden])").count();
      const count = await page.textContent("#count");
      if (visible !== s.visible) fail(p.name, `search ${JSON.stringify(s.query)}: ${visible} rows shown, expected ${s.visible}`);
      // The count's words are the page's language: `count` (a pattern with {visible}) when the plan gives one.
      const want = s.count ? s.count.replace("{visible}", String(s.visible)) : null;
      if (want !== null ? count !== want : s.query && !count.startsWith(`${s.visible} of `)) fail(p.name, `search ${JSON.stringify(s.query)}: count says ${JSON.stringify(count)}`);
      (result.search ||= []).push({ query: s.query, visible });
    }
    if (p.search && p.search.length) {
      await page.fill("#q", "");
      const all = await page.locator("[data-search]:not([hidden])").count();
      const total = await page.locator("[data-search]").count();
      if (all !== total) fail(p.name, `an empty search shows ${all} of ${total} rows`);
    }
    if (p.hash_query) {
      const h = p.hash_query;
      await page.goto(`${p.url}#q=${encodeURIComponent(h.query)}`, { waitUntil: "load" });
      const visible = await page.locator("[data-search]:not([hidden])").count();
      if (visible !== h.visible) fail(p.name, `#q=${h.query}: ${visible} rows shown, expected ${h.visible}`);
      if ((await page.inputValue("#q")) !== h.query) fail(p.name, "#q= did not fill the search box");
      await page.goto(p.url, { waitUntil: "load" });
    }
    if (p.click_item) {
      // A picture's item is a link to its row: after the click the row is the page's target.
      const link = page.locator(`svg.view a[href^="#r"]`).first();
      const href = await link.getAttribute("href");
      await link.click();
      const hash = await page.evaluate(() => location.hash);
      const target = await page.evaluate(() => { const t = document.querySelector(":target"); return t ? t.id : null; });
      if (hash !== href || target !== href.slice(1)) fail(p.name, `clicking ${href} led to ${hash} (target ${target})`);
      result.clicked = href;
    }
    for (const shot of p.screenshots || []) {
      mkdirSync(dirname(shot.path), { recursive: true });
      const el = page.locator(shot.selector).first();
      if ((await el.count()) === 0) {
        fail(p.name, `nothing matches ${shot.selector} for the screenshot`);
        continue;
      }
      await el.screenshot({ path: shot.path });
      (result.screenshots ||= []).push(shot.path);
    }
    for (const e of errors) fail(p.name, e);
    console.log(JSON.stringify(result));
    await page.close();
  }
} finally {
  await browser.close();
}
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
