// junit2json_parse.mjs — reads a JUnit XML file with npm's junit2json (a
// real consumer: xml2js over sax in strict mode, as CI tools use it) and
// prints what it understood as JSON, for test_ci_reports.py.
//
//     node junit2json_parse.mjs REPORT.xml
//
// Exits 0 with the JSON on stdout, 1 when the consumer rejects the file
// (its error on stderr), 3 when junit2json is not installed.
import { readFileSync } from 'node:fs'

let parse
try {
  ({ parse } = await import('junit2json'))
} catch (error) {
  console.error(`junit2json is not installed (scripts/install-npm-deps.sh runs npm ci in tests/consumers): ${error.message}`)
  process.exit(3)
}

try {
  const parsed = await parse(readFileSync(process.argv[2], 'utf8'))
  process.stdout.write(JSON.stringify(parsed))
} catch (error) {
  console.error(`junit2json rejects ${process.argv[2]}: ${error.message}`)
  process.exit(1)
}
