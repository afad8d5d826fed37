// FunnyPitch's Node.js server, reduced to its use of the tables (README.md): loads the server's data without
// blocking, answers from typed references, and hot-reloads by loading a second Tables and swapping it in.
//   node main.js <generated/data/typescript>
import { GentableDataError, loadTablesAsync, Side, type Tables } from "../../../generated/ts/index.js";

const dir = process.argv[2] ?? "generated/data/typescript";

/** The tables every request reads: replaced as a whole on reload, never changed in place. */
let current: Tables;
try {
  current = await loadTablesAsync(dir);
} catch (e) {
  if (e instanceof GentableDataError) {
    process.stderr.write("cannot load the tables: " + e.message + "\n");
    process.exit(1);
  }
  throw e;
}

/** The AI's material score of one side's initial layout (AiWeight is a server-only field). */
function material(t: Tables, side: Side): number {
  let sum = 0;
  for (const cell of t.initPosition.all) {
    if (cell.side === side && cell.pieceRef !== undefined) sum += cell.pieceRef.aiWeight;
  }
  return sum;
}

/** What a promotion gains, by the AI's weights: the two rows themselves, no lookup by id. */
for (const u of current.upgrade.all) {
  const gain = u.toRef.aiWeight - u.fromRef.aiWeight;
  process.stdout.write("upgrade " + u.id + ": " + (gain > 0 ? "+" : "") + String(gain) + "\n");
}
for (const side of Object.values(Side)) process.stdout.write("material " + side + " " + String(material(current, side)) + "\n");
const special = current.specialMove.all.find((s) => s.targetRef !== undefined);
process.stdout.write("targeted special " + (special?.id ?? "-") + " -> " + (special?.targetRef?.id ?? "-") + "\n");
process.stdout.write("spy seed " + String(current.serverConfig.spySeed) + ", think " + String(current.serverConfig.aiThinkTime) + " ms\n");

// A row's typed references are getters of its class, not own properties: spreading or serialising a row never
// follows them.
const promotion = current.upgrade.all[0];
if (promotion !== undefined) {
  process.stdout.write(
    "references hidden " + String(!Object.keys(promotion).includes("toRef") && !("toRef" in { ...promotion }) &&
      !("toRef" in (JSON.parse(JSON.stringify(promotion)) as object))) +
      ", own " + String(Object.prototype.hasOwnProperty.call(promotion, "toRef")) + "\n",
  );
}

// Hot reload: a request that started on the old tables keeps a consistent view; new requests see the new ones.
const before = current;
const inFlight = before.pieceType.getOrThrow("Lord");
current = await loadTablesAsync(dir);
process.stdout.write(
  "reload: new rows " + String(current.pieceType.getOrThrow("Lord") !== inFlight) +
    ", old view intact " + String(before.upgrade.all[0]?.fromRef === before.pieceType.get(before.upgrade.all[0]?.from ?? "")) +
    ", frozen " + String(Object.isFrozen(current.pieceType.getOrThrow("Lord"))) + "\n",
);
