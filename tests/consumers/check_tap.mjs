// check_tap.mjs FILE — parses a TAP stream with `tap-parser` in strict
// mode and prints, as one JSON object, its final results (counts, plan,
// bail-out), the parse errors (every failure that carries a tapError:
// non-TAP lines, YAML that does not parse, a plan that does not match),
// and every test point with its diagnostics.
import { readFileSync } from 'node:fs';
import { Parser } from 'tap-parser';

const points = [];
const parser = new Parser({ strict: true }, (results) => {
  process.stdout.write(JSON.stringify({
    ok: results.ok,
    count: results.count,
    pass: results.pass,
    fail: results.fail,
    skip: results.skip,
    todo: results.todo,
    bailout: results.bailout,
    plan: { start: results.plan.start, end: results.plan.end },
    parse_errors: results.failures
      .filter((failure) => failure.tapError)
      .map((failure) => failure.tapError + (failure.data ? ': ' + failure.data : '')),
    points,
  }) + '\n');
});
parser.on('assert', (point) => {
  points.push({ id: point.id, name: point.name, ok: point.ok,
                skip: point.skip, diag: point.diag });
});
parser.end(readFileSync(process.argv[2], 'utf8'));
