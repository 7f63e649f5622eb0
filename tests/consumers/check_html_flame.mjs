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
//           "callers", "callers_full", "callees", "callees_fill",
//           "unrelated", "unrelated_hidden", "before", "after_reset",
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
  // The frame to zoom into: one with callers above it and callees below
  // it, the deepest such, then the widest. Callers, callees and the
  // frames related to it by neither are told apart from the picture as
  // drawn before the click: a caller's span holds the target's, a
  // callee's span lies inside it.
  const target = await figure.evaluateHandle((f) => {
    const e = 0.02;
    const box = (g) => { const r = g.querySelector('rect');
                         return { x: +r.getAttribute('x'), y: +r.getAttribute('y'),
                                  w: +r.getAttribute('width') }; };
    const frames = [...f.querySelectorAll('g.frame')];
    const callees = (t) => frames.filter((g) => { const a = box(g);
      return a.y > t.y && a.x >= t.x - e && a.x + a.w <= t.x + t.w + e; }).length;
    return frames.map((g) => ({ g, b: box(g) }))
      .filter(({ g, b }) => b.y > 0 && callees(b) > 0)
      .sort((p, q) => q.b.y - p.b.y || q.b.w - p.b.w)[0].g;
  });
  const related = await figure.evaluate((f, t) => {
    const e = 0.02;
    const box = (g) => { const r = g.querySelector('rect');
                         return { x: +r.getAttribute('x'), y: +r.getAttribute('y'),
                                  w: +r.getAttribute('width') }; };
    const to = box(t), W = +f.querySelector('svg').dataset.width;
    return [...f.querySelectorAll('g.frame')].map((g) => {
      const a = box(g);
      if (g === t)
        return { kind: 'target', ...a };
      if (a.y < to.y && a.x <= to.x + e && a.x + a.w >= to.x + to.w - e)
        return { kind: 'caller', ...a };
      if (a.y > to.y && a.x >= to.x - e && a.x + a.w <= to.x + to.w + e)
        return { kind: 'callee', x: (a.x - to.x) * W / to.w, y: a.y,
                 w: a.w * W / to.w };
      return { kind: 'unrelated', ...a };
    });
  }, target);
  zoom.target = await target.evaluate((g) => g.querySelector('title').textContent.split('\n')[0]);
  await target.click();
  // After the click: the target and each caller span the full width, each
  // callee is drawn where the target's span, stretched to the width, puts
  // it, and every unrelated frame is hidden.
  Object.assign(zoom, await figure.evaluate((f, [g, was]) => {
    const near = (a, b) => Math.abs(a - b) < 0.5;
    const W = +f.querySelector('svg').dataset.width;
    const r = g.querySelector('rect');
    const now = [...f.querySelectorAll('g.frame')].map((x) => {
      const rect = x.querySelector('rect');
      return { shown: x.getAttribute('display') !== 'none',
               x: +rect.getAttribute('x'), w: +rect.getAttribute('width') };
    });
    const of = (kind) => was.map((w, i) => [w, now[i]]).filter(([w]) => w.kind === kind);
    const callers = of('caller'), callees = of('callee'), unrelated = of('unrelated');
    return {
      zoomed: f.dataset.zoom,
      target_x: +r.getAttribute('x'),
      target_width: +r.getAttribute('width'),
      callers: callers.length,
      callers_full: callers.every(([, n]) => n.shown && near(n.x, 0) && near(n.w, W)),
      callees: callees.length,
      callees_fill: callees.every(([w, n]) => n.shown && near(n.x, w.x) && near(n.w, w.w)),
      unrelated: unrelated.length,
      unrelated_hidden: unrelated.every(([, n]) => !n.shown),
    };
  }, [target, related]));
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
