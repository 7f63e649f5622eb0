// wait_scale.mjs — how long the browser checks may wait for a page:
// `waitMs(ms)` is `ms` times TATTLE_TIMEOUT_MULTIPLIER (at least 1), the
// factor the sanitizer builds set for their tests, so a bound that holds
// on an idle machine also holds under ThreadSanitizer on a loaded one.
// Each wait it bounds is a wait for a condition, never a fixed pause.
const factor = Math.max(1, Number(process.env.TATTLE_TIMEOUT_MULTIPLIER) || 1);

export function waitMs(ms) {
  return ms * factor;
}
