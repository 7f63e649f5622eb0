// mermaid_parse.mjs — reads Mermaid diagrams with npm's mermaid parser
// (mermaid.parse, which needs no DOM for a sequenceDiagram) and prints
// one line of JSON: [{"file", "ok", "type", "error"}] for each file given.
//
//   node mermaid_parse.mjs DIAGRAM.mmd...
import fs from 'node:fs';
import mermaid from 'mermaid';

mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
const results = [];
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  try {
    const parsed = await mermaid.parse(text);
    results.push({ file, ok: true, type: parsed.diagramType });
  } catch (error) {
    results.push({ file, ok: false, error: String(error.message || error) });
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
