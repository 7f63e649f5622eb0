// check_ctrf.mjs FILE — validates a CTRF report with the `ctrf` package
// (the reference implementation's schema validator) and prints, as one
// JSON object, whether it is valid, the validator's errors, and the
// counts a reader of the report sees (summary and statuses of tests[]).
import { readFileSync } from 'node:fs';
import { validate } from 'ctrf';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { valid, errors } = validate(report);
const statuses = {};
for (const test of report?.results?.tests ?? [])
  statuses[test.status] = (statuses[test.status] ?? 0) + 1;
process.stdout.write(JSON.stringify({
  valid,
  errors,
  summary: report?.results?.summary ?? null,
  statuses,
}) + '\n');
