// check_html_flame.mjs — opens an HTML report in headless Chromium
// (Debian's /usr/bin/chromium, driven by npm's playwright-core), works the
// flame graph of one test with the mouse and the keyboard, and prints one
// line of JSON saying what it saw:
//
//   node check_html_flame.mjs REPORT.html SCREENSHOT_DIR TEST_ID
//
// {"requests": [...], "console_errors": [...], "page_errors": [...],
//  "pwned": window.pwned, "img": n,
//  "names": {test id: [frame names, from their titles]},
//  "zoom": {"target", "zoomed", "target_x", "target_width",
//           "callers_full", "hidden", "before", "after_reset",
//           "keyboard_focus", "keyboard_zoomed"},
//  "light_fill", "dark_fill", "screenshots": [paths]}
//
// The browser, the page's requests (recorded and aborted) and its
// errors are report_page.mjs's.
import path from 'node:path';
import { inspectReport } from './report_page.mjs';

const [report, shots, testId] = process.argv.slice(2);

await inspectReport(report, shots, async (page, result) => {
  if (!result.ready)
    throw new Error('the page\'s script did not run to its end');
  Object.assign(result, await page.evaluate(() => {
    const names = {};
    for (const t of document.querySelectorAll('details.test')) {
      const svg = t.querySelector('svg.flame');
      if (!svg)
        continue;
      t.open = true;
      names[t.querySelector('summary .id').textContent] =
        [...svg.querySelectorAll('g.frame title')].map((x) => x.textContent.split('\n')[0]);
    }
    return { pwned: window.pwned === undefined ? null : window.pwned,
             img: document.querySelectorAll('img').length, names };
  }));

  // The figure of TEST_ID, and its frames' geometry.
  const figure = await page.evaluateHandle((id) => {
    const t = [...document.querySelectorAll('details.test')].find(
      (d) => d.querySelector('summary .id').textContent === id);
    return t.querySelector('figure.flame');
  }, testId);
  const geometry = () => figure.evaluate((f) =>
    [...f.querySelectorAll('g.frame')].map((g) => {
      const r = g.querySelector('rect');
      return [r.getAttribute('x'), r.getAttribute('width'),
              g.getAttribute('display') || ''].join(' ');
    }));
  await figure.evaluate((f) => f.scrollIntoView());
  const light = path.join(shots, 'flame-light.png');
  await figure.screenshot({ path: light });
  result.screenshots.push(light);
  result.light_fill = await figure.evaluate((f) =>
    getComputedStyle(f.querySelector('g.frame:not(.thread) rect')).fill);

  const zoom = { before: await geometry() };
  // The widest frame of the second row of calls, or of the first.
  const target = await figure.evaluateHandle((f) => {
    const frames = [...f.querySelectorAll('g.frame')];
    const at = (y) => frames.filter((g) => +g.querySelector('rect').getAttribute('y') === y)
      .sort((a, b) => b.querySelector('rect').getAttribute('width') -
                      a.querySelector('rect').getAttribute('width'))[0];
    return at(36) || at(18);
  });
  zoom.target = await target.evaluate((g) => g.querySelector('title').textContent.split('\n')[0]);
  await target.click();
  Object.assign(zoom, await figure.evaluate((f, g) => {
    const r = g.querySelector('rect');
    const y = +r.getAttribute('y');
    const shown = [...f.querySelectorAll('g.frame')].filter((x) => !x.getAttribute('display'));
    return {
      zoomed: f.dataset.zoom,
      target_x: +r.getAttribute('x'),
      target_width: +r.getAttribute('width'),
      callers_full: shown.filter((x) => +x.querySelector('rect').getAttribute('y') < y)
        .every((x) => Math.abs(x.querySelector('rect').getAttribute('width') - 1100) < 0.5),
      hidden: f.querySelectorAll('g.frame[display="none"]').length,
    };
  }, target));
  const zoomed = path.join(shots, 'flame-zoomed.png');
  await figure.screenshot({ path: zoomed });
  result.screenshots.push(zoomed);
  await figure.evaluate((f) => f.querySelector('.flame-reset').click());
  zoom.after_reset = await geometry();

  // The keyboard: from the picture's scrolling region, Tab reaches the
  // first frame (a thread), Enter zooms to it.
  await figure.evaluate((f) => f.querySelector('.scroll').focus());
  await page.keyboard.press('Tab');
  zoom.keyboard_focus = await page.evaluate(
    () => document.activeElement.matches('svg.flame g.frame'));
  await page.keyboard.press('Enter');
  zoom.keyboard_zoomed = await figure.evaluate((f) => {
    const g = document.activeElement;
    const r = g.querySelector('rect');
    return f.contains(g) && f.dataset.zoom === g.querySelector('title').textContent.split('\n')[0] &&
      Math.abs(r.getAttribute('width') - 1100) < 0.5;
  });
  await figure.evaluate((f) => f.querySelector('.flame-reset').click());
  result.zoom = zoom;

  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = path.join(shots, 'flame-dark.png');
  await figure.screenshot({ path: dark });
  result.screenshots.push(dark);
  result.dark_fill = await figure.evaluate((f) =>
    getComputedStyle(f.querySelector('g.frame:not(.thread) rect')).fill);
});
