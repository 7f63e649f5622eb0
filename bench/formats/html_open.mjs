// html_open.mjs — how long headless Chromium takes to make an HTML report
// interactive: from the start of navigation to the end of the page's
// script (it sets data-ready on <html>), read from the page's own clock
// (performance.now() counts from navigation start). The baseline, in the
// same browser and run, is an empty page. The page's main-thread CPU
// time (CDP Performance.getMetrics, ThreadTime) is printed too: on a
// loaded machine it moves far less than the wall time. Prints two lines for
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
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(ready, null, { timeout: 60000 });
  const ms = await page.evaluate(() => performance.now());
  const { metrics } = await cdp.send('Performance.getMetrics');
  const cpu = metrics.find((m) => m.name === 'ThreadTime').value;
  await page.close();
  return [ms, cpu];
}
try {
  const [report, reportCpu] = await open(pathToFileURL(path.resolve(process.argv[2])).href,
                            () => document.documentElement.dataset.ready === 'true');
  const [empty, emptyCpu] = await open('data:text/html,<!DOCTYPE html><p>empty',
                           () => document.readyState === 'complete');
  console.log(`  chromium          ${(report / 1000).toFixed(3)} s to interactive (main thread CPU ${reportCpu.toFixed(3)} s)   target <= 2 s`);
  console.log(`  baseline empty    ${(empty / 1000).toFixed(3)} s (main thread CPU ${emptyCpu.toFixed(3)} s; an empty page, same browser)`);
} finally {
  await browser.close();
}
