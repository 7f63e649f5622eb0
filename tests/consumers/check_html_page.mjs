// check_html_page.mjs — opens one HTML report in headless Chromium
// (Debian's /usr/bin/chromium, driven by npm's playwright-core) and prints
// one line of JSON saying what the page holds as a browser sees it:
//
//   node check_html_page.mjs REPORT.html SCREENSHOT_DIR [TAG [SEARCH]]
//
// {"requests": [urls other than the page itself], "console_errors": [...],
//  "page_errors": [...], "ready": bool, "pwned": window.pwned,
//  "injected": {"img": n, "iframe": n, "script": n, ...},
//  "tests": [{"id", "state", "suite", "tags", "open", "messages": [...],
//             "arrows": {"matched", "unmatched"}, "declared_matched",
//             "svg": bool}],
//  "data": the embedded JSON data, parsed,
//  "tag_filter": {"tag", "visible": [ids], "shown",
//                 "blocks": {"sizes": [tests per block], "hidden": [bool]}}
//                                           (with TAG)
//  "search": {"text", "deferred": [ids whose details were not yet
//             elements], "visible": [ids the text filter left]},
//  "opened": {"id", "deferred_after", "output", "rerun", "copy_shown"}
//             (with SEARCH: the first test it left, opened)
//  "keyboard_opened": {"id", "focusable", "open", "rendered", "output"}
//             (with SEARCH: a passed test's row opened with Enter)
//  "at_load": {"open": failed tests open at load, "toggled": their toggle
//              events seen, "unpacked": times the inert block was parsed
//              by then} (the page's lazy deferral: 0),
//  "unpacked_after_search": times parsed once the text filter ran
//             (with SEARCH: 1, which shows the count sees a parse),
//  "screenshots": [paths]}
//
// The browser, the page's requests (recorded and aborted: nothing is
// ever fetched) and its errors are report_page.mjs's.
import path from 'node:path';
import { inspectReport } from './report_page.mjs';
import { waitMs } from './wait_scale.mjs';

const [report, shots, tag, search] = process.argv.slice(2);

// Runs in the page before its script: counts the toggle events of open
// tests (the parser's `open` fires one each, after the page's script is
// in) and each time the inert block's whole text is parsed as HTML.
function watchDeferral() {
  window.tattleWatch = { toggled: 0, unpacked: 0 };
  window.addEventListener('toggle', (e) => {
    if (e.target.open && e.target.classList && e.target.classList.contains('test'))
      window.tattleWatch.toggled++;
  }, true);
  const inner = Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML');
  Object.defineProperty(Element.prototype, 'innerHTML', {
    configurable: true,
    get() { return inner.get.call(this); },
    set(value) {
      const block = document.getElementById('tattle-deferred');
      if (block && block.textContent.length && value === block.textContent)
        window.tattleWatch.unpacked++;
      inner.set.call(this, value);
    },
  });
}

await inspectReport(report, shots, async (page, result) => {
  // Opening the failed tests the page opens at load parses nothing
  // deferred: wait for each of their toggle events, then count.
  const open = await page.evaluate(() =>
    document.querySelectorAll('main details.test[open]').length);
  await page.waitForFunction((n) => window.tattleWatch.toggled >= n, open,
                             { timeout: waitMs(5000) }).catch(() => {});
  result.at_load = await page.evaluate((n) => ({
    open: n, toggled: window.tattleWatch.toggled,
    unpacked: window.tattleWatch.unpacked }), open);
  Object.assign(result, await page.evaluate(() => {
    const isOpen = (t) => t.open || t.dataset.open === 'true';
    const count = (selector) => document.querySelectorAll(selector).length;
    const tests = [...document.querySelectorAll('main .test')].map((t) => {
      const svg = t.querySelector('svg.sequence');
      return {
        id: t.querySelector('.id').textContent,
        state: t.classList[1],
        suite: t.dataset.suite,
        tags: t.dataset.tags ? t.dataset.tags.split('\n') : [],
        open: isOpen(t),
        messages: [...t.querySelectorAll('.failure pre.message')].map((m) => m.textContent),
        values: [...t.querySelectorAll('.failure dd code')].map((m) => m.textContent),
        output: [...t.querySelectorAll('.output pre')].map((m) => m.textContent),
        svg: !!svg,
        svg_text: svg ? [...svg.querySelectorAll('text')].map((x) => x.textContent) : [],
        arrows: svg ? { matched: svg.querySelectorAll('.arrow.matched').length,
                        unmatched: svg.querySelectorAll('.arrow.unmatched').length } : null,
        declared_matched: svg ? Number(svg.dataset.matched) : null,
        ending: svg ? [...svg.querySelectorAll('.ending text')].map((x) => x.textContent) : [],
        pending: svg ? [...svg.querySelectorAll('.mailbox-contents text')].map((x) => x.textContent) : [],
        rerun: t.querySelector('.rerun code') ? t.querySelector('.rerun code').textContent : null,
      };
    });
    return {
      pwned: window.pwned === undefined ? null : window.pwned,
      injected: { img: count('img'), iframe: count('iframe'), object: count('object'),
                  embed: count('embed'), script: count('script'),
                  json_script: count('script[type="application/json"]'),
                  on_attributes: [...document.querySelectorAll('*')].filter(
                    (e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length },
      data: document.getElementById('tattle-data')
        ? JSON.parse(document.getElementById('tattle-data').textContent) : null,
      tests,
    };
  }));
  const full = path.join(shots, 'report.png');
  await page.screenshot({ path: full, fullPage: true });
  result.screenshots.push(full);
  const figures = await page.$$('.test.failed figure.trace');
  for (let i = 0; i < figures.length; i++) {
    const shot = path.join(shots, `diagram-${i + 1}.png`);
    await figures[i].scrollIntoViewIfNeeded();
    await figures[i].screenshot({ path: shot });
    result.screenshots.push(shot);
  }
  if (search) {
    const ids = (selector) => page.$$eval(selector, (all) =>
      all.map((t) => t.querySelector('.id').textContent));
    const deferred = await ids('.test.passed:not([data-rendered]):not([data-flaky])');
    await page.fill('#filters input[name="text"]', search);
    result.search = { text: search, deferred,
                      visible: await ids('main .test:not([hidden])') };
    result.unpacked_after_search = await page.evaluate(() => window.tattleWatch.unpacked);
    await page.fill('#filters input[name="text"]', '');
    if (result.search.visible.length) {
      const id = result.search.visible[0];
      const test = await page.evaluateHandle((want) =>
        [...document.querySelectorAll('main .test')].find(
          (t) => t.querySelector('.id').textContent === want), id);
      await test.evaluate((t) => t.querySelector('summary, .summary').click());
      await page.waitForFunction((t) => (t.open || t.dataset.open === 'true') &&
                                 t.dataset.rendered, test,
                                 { timeout: waitMs(5000) }).catch(() => {});
      result.opened = await test.evaluate((t) => ({
        id: t.querySelector('.id').textContent,
        deferred_after: !t.dataset.rendered,
        output: [...t.querySelectorAll('.output pre')].map((m) => m.textContent),
        rerun: t.querySelector('.rerun code') ? t.querySelector('.rerun code').textContent : null,
        copy_shown: !!t.querySelector('button.copy:not([hidden])'),
      }));
    }
    // A passed test's row opens from the keyboard too: Tab reaches it,
    // Enter opens it and renders its details.
    const row = await page.$('div.test:not([data-rendered])>.summary');
    if (row) {
      await row.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction((s) => s.parentNode.dataset.rendered, row,
                                 { timeout: waitMs(5000) }).catch(() => {});
      result.keyboard_opened = await row.evaluate((s) => ({
        id: s.querySelector('.id').textContent,
        focusable: s.tabIndex === 0,
        open: s.parentNode.dataset.open === 'true',
        rendered: !!s.parentNode.dataset.rendered,
        output: [...s.parentNode.querySelectorAll('.output pre')].map((m) => m.textContent),
      }));
    }
  }
  if (tag) {
    await page.selectOption('#filters select[name="tag"]', tag);
    result.tag_filter = {
      tag,
      visible: await page.$$eval('main .test', (all) =>
        all.filter((t) => !t.hidden).map((t) => t.querySelector('.id').textContent)),
      shown: await page.$eval('#shown', (s) => s.textContent),
      blocks: await page.$$eval('main>.chunk', (all) => ({
        sizes: all.map((c) => c.querySelectorAll('.test').length),
        hidden: all.map((c) => c.hidden),
      })),
    };
    const shot = path.join(shots, 'filtered.png');
    await page.screenshot({ path: shot, fullPage: true });
    result.screenshots.push(shot);
  }
  // The dark colour scheme, as a reader who prefers it sees the page.
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = path.join(shots, 'report-dark.png');
  await page.screenshot({ path: dark });
  result.screenshots.push(dark);
  result.dark_background = await page.evaluate(
    () => getComputedStyle(document.body).backgroundColor);
  // Keyboard: the Tab stops lead through the counts and filters to the tests.
  const focused = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    focused.push(await page.evaluate(() => document.activeElement.tagName.toLowerCase()));
  }
  result.focused = focused;
}, watchDeferral);
