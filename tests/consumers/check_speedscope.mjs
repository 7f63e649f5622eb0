// check_speedscope.mjs — opens one profile in speedscope (npm's
// speedscope, its release build, in Debian's /usr/bin/chromium driven by
// npm's playwright-core) the way its command line does, and prints one
// line of JSON saying what speedscope showed:
//
//   node check_speedscope.mjs PROFILE
//
// {"title": the page's title once loaded ("NAME - speedscope"),
//  "alerts": [dialogs: speedscope's import errors], "page_errors": [...],
//  "console_errors": [...], "console": [the last 20 messages of any type],
//  "page_text": what the page showed when it did not load (else absent),
//  "requests": [urls fetched but the page's own],
//  "profiles": [{"name", "frames": [frame names of its sandwich table]}]}
//
// The profile goes in as speedscope's CLI hands it over: a script that
// calls speedscope.loadFileFromBase64(name, base64), named by the page's
// #localProfilePath. For each profile (a file may hold several: one per
// thread of a Chrome trace) the sandwich view, whose table lists every
// frame as text, is read; the flame chart itself is a canvas. Every wait
// is for a condition on the page, bounded by wait_scale.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium } from './report_page.mjs';
import { waitMs } from './wait_scale.mjs';

const [profile] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const page_path = path.join(here, 'node_modules', 'speedscope', 'dist',
                            'release', 'index.html');
const name = path.basename(profile);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tattle-speedscope-'));
const loader = path.join(scratch, 'load.js');
fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ` +
                 `${JSON.stringify(fs.readFileSync(profile).toString('base64'))})`);
const url = pathToFileURL(page_path).href + '#localProfilePath=' + loader;

const browser = await launchChromium();
const result = { alerts: [], page_errors: [], console_errors: [],
                 console: [], requests: [], profiles: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('dialog', (d) => { result.alerts.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => result.page_errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error')
      result.console_errors.push(m.text());
    // The last messages of any kind: speedscope says an import failed
    // with console.log ("Failed to load format"), not with an error.
    result.console.push(`${m.type()}: ${m.text()}`.slice(0, 500));
    result.console.splice(0, result.console.length - 20);
  });
  page.on('request', (r) => {
    const requested = r.url();
    if (!requested.startsWith(pathToFileURL(path.dirname(page_path)).href) &&
        requested !== pathToFileURL(loader).href &&
        !requested.startsWith('data:'))
      result.requests.push(requested);
  });
  await page.goto(url, { waitUntil: 'load' });
  const want = `${name} - speedscope`;
  await page.waitForFunction((t) => document.title.startsWith(t) ||
                             document.title.includes(' - speedscope'),
                             want, { timeout: waitMs(30000) })
    .catch((error) => { if (error.name !== 'TimeoutError') throw error; });
  result.title = await page.title();
  if (!result.title.endsWith(' - speedscope'))
    // Not loaded: what the page shows instead (its landing page, a
    // spinner, an error screen) says which way it went.
    result.page_text = (await page.evaluate(() => document.body.innerText)).slice(0, 1000);
  if (result.title.endsWith(' - speedscope')) {
    // The sandwich view lists the frames of the profile shown as text.
    await page.getByText('Sandwich', { exact: false }).first().click();
    // Profile AT of OF is shown (a file of several profiles shows "(AT/OF)"
    // in the toolbar, one of a single profile its name only), and its
    // sandwich table has a frame's row (three cells: total, self, symbol;
    // the hidden profile list's rows start with a number, the header
    // with "Total" or "#").
    const shown = (at, of) => page.waitForFunction(([at, of]) => {
      const indexed = at === 0 || [...document.querySelectorAll('span')]
        .some((s) => s.textContent === `(${at}/${of})`);
      return indexed && [...document.querySelectorAll('tr')].some((r) =>
        r.children.length === 3 && r.children[2].textContent !== '' &&
        !/^(Total|#|\d+)$/.test(r.children[0].textContent));
    }, [at, of], { timeout: waitMs(30000) });
    await shown(0, 0);
    const position = await page.evaluate(() => [...document.querySelectorAll('span')]
      .map((s) => s.textContent).find((t) => /^\(\d+\/\d+\)$/.test(t)) || null);
    const count = position ? Number(position.slice(1, -1).split('/')[1]) : 1;
    for (let index = 1; index <= count; index++) {
      if (count > 1)
        await shown(index, count);
      result.profiles.push(await page.evaluate(() => ({
        text: document.body.innerText,
        rows: [...document.querySelectorAll('tr')].map(
          (r) => [...r.children].map((c) => c.textContent)),
      })));
      // The next profile: speedscope's "n" key.
      if (index < count)
        await page.keyboard.press('n');
    }
  }
} finally {
  await browser.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
