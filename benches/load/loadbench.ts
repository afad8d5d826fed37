// The TypeScript side of the load benchmark (benches/harness/src/loadbench.rs, docs/performance.md "Loading"):
// compiled with the pinned tsc together with a benchmark set's generated/ts, run once per measurement under node.
//   node loadbench.js <mode> <data dir>
// prints the milliseconds the mode took (module loading excluded). Everything read stays reachable until the time
// is taken, as loaded tables do. Modes:
//   read    the file-read floor: readFileSync of every data file
//   parse   the plain-parse floor: readFileSync(file, "utf8") and JSON.parse of every file
//   json    loadTables(dir): the generated loader (<Table>.json)
//   binary  loadTables(dir) with data = ["binary"]: the generated loader (<Table>.bytes)
import * as fs from "node:fs";
import * as path from "node:path";
import { DATA_FILES, loadTables } from "./gen/index.js";

const mode = process.argv[2] ?? "";
const dir = process.argv[3] ?? "";
let keep: unknown;
const start = performance.now();
switch (mode) {
  case "read":
    keep = DATA_FILES.map((f) => fs.readFileSync(path.join(dir, f)));
    break;
  case "parse":
    keep = DATA_FILES.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as unknown);
    break;
  case "json":
  case "binary":
    keep = loadTables(dir);
    break;
  default:
    process.stderr.write("unknown mode " + mode + "\n");
    process.exit(2);
}
const took = performance.now() - start;
process.stdout.write(took.toFixed(1) + "\n");
if (keep === undefined) process.exit(1);
