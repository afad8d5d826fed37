#!/usr/bin/env python3
"""The Python baseline of gentable's benchmark (issue 7, docs/performance.md).

It does the job the way teams do it today: read every table with openpyxl (workbooks) or the csv module,
convert each cell by the JSON Schema's property type, validate every row with `jsonschema` (one compiled
validator per table), check primary keys and foreign keys, and write one JSON file per table.

    python3 benches/baseline.py --setup        # create target/bench-venv and install the pinned packages (PyPI)
    target/bench-venv/bin/python benches/baseline.py target/bench-data/<set>

The set folder holds `bench.json` (written by the benchmark's data generator): for every table its file,
sheet, header row, first data row and first column. Output goes to `<set>/py-out/`. Exit code 1 if any row
is invalid (the generated sets are valid, so that would be a bug).
"""

import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "bench-venv")
REQUIREMENTS = ["openpyxl==3.1.5", "jsonschema==4.23.0"]


def setup():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS])
    print(py)


def load_schemas(schema_dir):
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    docs = {}
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".json"):
            with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
                docs[name] = json.load(f)
    registry = Registry().with_resources(
        (name, Resource.from_contents(doc, default_specification=DRAFT202012)) for name, doc in docs.items()
    )
    return docs, registry


def converter(prop, docs):
    """A function turning one cell into the JSON value of `prop` (None = absent)."""
    if "$ref" in prop:
        file, _, pointer = prop["$ref"].partition("#")
        target = docs[file]
        for part in pointer.strip("/").split("/"):
            target = target[part]
        prop = target
    ty = prop.get("type")
    if ty == "integer":
        return lambda v: int(v) if isinstance(v, (int, float)) else int(str(v).strip())
    if ty == "number":
        return lambda v: float(v)
    if ty == "boolean":
        return lambda v: v if isinstance(v, bool) else str(v).strip().lower() in ("true", "1", "yes")
    if ty == "array":
        item = converter(prop.get("items", {}), docs)
        return lambda v: [item(x) for x in str(v).split("|") if x != ""]
    return lambda v: v if isinstance(v, str) else str(v)


def read_rows(set_dir, t):
    """Rows of cells (lists) of one table, from the data row on, from the first column on; and the header."""
    path = os.path.join(set_dir, t["file"])
    first = t["first_column"]
    if t["format"] == "csv":
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    else:
        import openpyxl

        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        rows = [list(r) for r in wb[t["sheet"]].iter_rows(values_only=True)]
        wb.close()
    header = [h for h in rows[t["header_row"] - 1][first:]]
    return header, [r[first:] for r in rows[t["data_row"] - 1:]]


def main(set_dir):
    from jsonschema import Draft202012Validator

    with open(os.path.join(set_dir, "bench.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    docs, registry = load_schemas(os.path.join(set_dir, "schema"))
    out_dir = os.path.join(set_dir, "py-out")
    os.makedirs(out_dir, exist_ok=True)
    errors = 0
    tables = {}
    for t in manifest["tables"]:
        schema = docs[os.path.basename(t["schema"])]
        validator = Draft202012Validator(schema, registry=registry)
        header, rows = read_rows(set_dir, t)
        props = schema["properties"]
        convs = [(i, h, converter(props[h], docs)) for i, h in enumerate(header) if h in props]
        pk = schema.get("x-gentable-primaryKey")
        seen = set()
        objs = []
        for r in rows:
            obj = {}
            for i, h, conv in convs:
                v = r[i] if i < len(r) else None
                if v is None or v == "":
                    if props[h].get("type") == "array":
                        obj[h] = []
                    continue
                obj[h] = conv(v)
            for e in validator.iter_errors(obj):
                errors += 1
                print(f"{t['file']}: {e.message}", file=sys.stderr)
            if pk is not None:
                if obj.get(pk) in seen:
                    errors += 1
                    print(f"{t['file']}: duplicate key {obj.get(pk)}", file=sys.stderr)
                seen.add(obj.get(pk))
            objs.append(obj)
        if pk is not None:
            objs.sort(key=lambda o: o[pk])
        tables[t["name"]] = (schema, objs, seen)
    for name, (schema, objs, _) in tables.items():
        for field, prop in schema["properties"].items():
            target = prop.get("x-gentable-foreignKey")
            if target is None:
                continue
            keys = tables[target][2]
            for o in objs:
                if field in o and o[field] not in keys:
                    errors += 1
                    print(f"{name}: {field} = {o[field]} is not a key of {target}", file=sys.stderr)
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(objs, f, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    if errors:
        print(f"baseline: {errors} errors", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--setup"]:
        setup()
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
