// report_page.mjs — what the browser checks of the HTML report share:
// Debian's /usr/bin/chromium (or $CHROMIUM) launched headless through npm's
// playwright-core, and one report page opened in it with every request
// but the page's own recorded and aborted (so nothing is ever fetched),
// console and page errors recorded, and the page's script waited for
// (it sets data-ready on <html>; the wait is scaled by wait_scale.mjs).
//
//   await inspectReport(REPORT, SHOTS, async (page, result) => { ... }
//                       [, INIT_SCRIPT]);
//
// runs INIT_SCRIPT (if given) in the page before any of its own, the
// callback on the loaded page, then prints `result` as one line
// of JSON: {"requests": [urls other than the page itself],
// "console_errors": [...], "page_errors": [...], "ready": bool,
// "screenshots": [paths the callback pushed], ...what the callback added}.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { waitMs } from './wait_scale.mjs';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

export async function inspectReport(report, shots, inspect, initScript) {
  const url = pathToFileURL(path.resolve(report)).href;
  fs.mkdirSync(shots, { recursive: true });
  const browser = await launchChromium();
  const result = { requests: [], console_errors: [], page_errors: [],
                   screenshots: [] };
  const record = (requested) => {
    if (requested !== url && !result.requests.includes(requested))
      result.requests.push(requested);
  };
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (initScript)
      await context.addInitScript(initScript);
    const page = await context.newPage();
    await context.route('**/*', (route) => {
      const requested = route.request().url();
      if (requested === url)
        return route.continue();
      record(requested);
      return route.abort();
    });
    // Requests routing cannot see (file: URLs) are recorded here.
    page.on('request', (r) => record(r.url()));
    page.on('console', (m) => { if (m.type() === 'error') result.console_errors.push(m.text()); });
    page.on('pageerror', (e) => result.page_errors.push(String(e)));
    await page.goto(url, { waitUntil: 'load' });
    result.ready = await page.waitForFunction(
      () => document.documentElement.dataset.ready === 'true', null,
      { timeout: waitMs(20000) }).then(() => true, () => false);
    await inspect(page, result);
    await context.close();
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}
