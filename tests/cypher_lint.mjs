// Reads [{name, text}] as JSON on stdin and prints [{name, errors: [...]}]:
// Neo4j's own parser and semantic analysis (lintCypherQuery) on each text.
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const items = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const out = items.map(({ name, text }) => {
  const { diagnostics } = lintCypherQuery(text, {});
  const errors = diagnostics
    // Parameters are supplied at run time; the linter has no way to know them.
    .filter((d) => d.severity === 1 && !/^Parameter \$\w+ is not defined/.test(d.message))
    .map((d) => ({ message: d.message, line: d.range.start.line + 1, column: d.range.start.character + 1 }));
  const warnings = diagnostics.filter((d) => d.severity !== 1).map((d) => d.message);
  return { name, errors, warnings };
});
process.stdout.write(JSON.stringify(out));
