// html_open.mjs — how long headless Chromium takes to make an HTML report
// interactive: from the start of navigation to the end of the page's
// script (it sets data-ready on <html>), read from the page's own clock
// (performance.now() counts from navigation start). The baseline, in the
// same browser and run, is an empty page. Prints two lines for
// formats_bench. Uses Debian's /usr/bin/chromium through npm's
// playwright-core as installed in tests/consumers.
//
//   node html_open.mjs REPORT.html
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'tests', 'consumers', 'package.json'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
async function open(url, ready) {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(ready, null, { timeout: 60000 });
  const ms = await page.evaluate(() => performance.now());
  await page.close();
  return ms;
}
try {
  const report = await open(pathToFileURL(path.resolve(process.argv[2])).href,
                            () => document.documentElement.dataset.ready === 'true');
  const empty = await open('data:text/html,<!DOCTYPE html><p>empty',
                           () => document.readyState === 'complete');
  console.log(`  chromium          ${(report / 1000).toFixed(3)} s to interactive   target <= 2 s`);
  console.log(`  baseline empty    ${(empty / 1000).toFixed(3)} s (an empty page, same browser)`);
} finally {
  await browser.close();
}
