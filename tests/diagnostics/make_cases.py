import json, os, sys
root = sys.argv[1]
TOML = '[project]\nname = "Case"\n'
def unit_schema(**extra):
    s = {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "x-gentable-primaryKey": "Id",
      "$defs": {"Side": {"type": "string", "enum": ["Red", "Blue"]}},
      "properties": {
        "Id": {"type": "integer", "minimum": 1, "maximum": 255},
        "Name": {"type": "string", "pattern": "^[A-Z]"},
        "Side": {"$ref": "#/$defs/Side"},
        "Hp": {"type": "integer", "minimum": 0, "maximum": 1000},
        "Tags": {"type": "array", "items": {"type": "integer"}},
      },
      "required": ["Id", "Name", "Side", "Hp"],
    }
    for k, v in extra.items():
        s[k.replace('_', '-')] = v
    return s
WEAPON = {"type": "object", "x-gentable-primaryKey": "Id", "properties": {"Id": {"type": "string"}, "Power": {"type": "integer"}}, "required": ["Id", "Power"]}
WEAPON_CSV = "Id,Power\nBow,3\nSword,5\nSpear,4\n"
UNIT_HDR = "Id,Name,Side,Hp,Tags\n"
OK_ROWS = "1,Archer,Red,10,1|2\n2,Knight,Blue,30,\n"

def case(name, files, args=None, readme=""):
    d = os.path.join(root, name)
    for rel, content in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if isinstance(content, bytes):
            open(p, "wb").write(content)
            continue
        if not isinstance(content, str):
            content = json.dumps(content, indent=2, ensure_ascii=False) + "\n"
        open(p, "w").write(content)
    if "gentable.toml" not in files:
        open(os.path.join(d, "gentable.toml"), "w").write(TOML)
    if args:
        open(os.path.join(d, "args"), "w").write(args + "\n")
    open(os.path.join(d, "README.md"), "w").write(readme + "\n")

def unit(name, rows, schema=None, readme="", extra=None, args=None, hdr=UNIT_HDR):
    f = {"schema/Unit.schema.json": schema or unit_schema(), "Table/Unit.csv": hdr + rows}
    f.update(extra or {})
    case(name, f, args, readme)

unit("wrong-type", OK_ROWS + "3,Mage,Red,lots,\n", readme="GT0201: text in an integer column.")
unit("out-of-range", OK_ROWS + "300,Mage,Red,10,\n", readme="GT0202: 300 does not fit the u8 picked from Id's maximum 255.")
unit("not-in-enum", OK_ROWS + "3,Mage,Green,10,\n4,Monk,red,10,\n", readme="GT0203: enum members are case-sensitive; the hint names the closest.")
unit("missing-value", OK_ROWS + "3,,Red,10,\n", readme="GT0204: a required cell is empty.")
unit("duplicate-primary-key", OK_ROWS + "2,Mage,Red,10,\n", readme="GT0302: both cells are named.")
s = unit_schema(x_gentable_primaryKey=["Side", "Slot"])
s["properties"]["Slot"] = {"type": "integer", "minimum": 0, "maximum": 9}
s["required"].append("Slot")
unit("duplicate-composite-key", "1,Archer,Red,10,,1\n2,Knight,Blue,30,,1\n3,Mage,Red,12,,1\n", schema=s, hdr="Id,Name,Side,Hp,Tags,Slot\n",
     readme="GT0302 for a composite primary key (Side, Slot): the message names every key cell of both rows.")
s = unit_schema(x_gentable_unique=[["Name"], ["Side", "Hp"]])
unit("duplicate-unique-key", OK_ROWS + "3,Archer,Blue,12,\n4,Mage,Red,10,\n", schema=s,
     readme="GT0303: a single-field unique key (Name) and a composite one (Side, Hp).")
unit("unknown-column", "1,Archer,Red,10,1|2,x\n", hdr="Id,Name,Side,Hp,Tags,Hpp\n", readme="GT0211: a header that is no property; the hint names the closest.")
s = unit_schema()
s["properties"]["Hp"]["x-gentable-aliases"] = ["生命值"]
unit("unknown-column-alias", "1,Archer,Red,10,1|2\n", schema=s, hdr="Id,Name,Side,生命量,Tags\n",
     readme="GT0211 and GT0212: a misspelt header close to an x-gentable-aliases entry (生命值 of Hp); both hints offer the alias and name its field.")
unit("missing-column", "1,Archer,Red,1|2\n", hdr="Id,Name,Side,Tags\n", readme="GT0212: a required property without a column.")
unit("duplicate-column", "1,Archer,Red,10,12,1\n", hdr="Id,Name,Side,Hp,Hp,Tags\n", readme="GT0213: a repeated header of a non-array field.")
unit("bad-cell-grammar", OK_ROWS + "3,Mage,Red,10,1||2\n4,Monk,Red,10,(1\n", readme="GT0205: an empty array element and an unbalanced parenthesis.")
s = unit_schema()
s["properties"]["Name"]["minLength"] = 3
unit("schema-keyword", OK_ROWS + "3,mage,Red,10,\n4,Al,Red,10,\n", schema=s, readme="GT0301: JSON Schema keywords pattern and minLength.")
s = unit_schema()
s["properties"]["Tags"]["maxItems"] = 2
s["properties"]["Speed"] = {"type": "number", "maximum": 100}
unit("schema-keyword-cell-text", "1,Archer,Red,10,1|2|3,10000000000000000\n2,Knight,Blue,30,,1.50e3\n", schema=s, hdr=UNIT_HDR.strip() + ",Speed\n",
     readme="GT0301 on a number and a list: cell_text is the cell as typed (10000000000000000, 1.50e3, 1|2|3), not the value's JSON form (1e+16, 1500.0, [1,2,3]) that the validator's message quotes.")

# Foreign keys.
s = unit_schema()
s["properties"]["Weapon"] = {"type": "string", "x-gentable-foreignKey": "Weapon"}
s["properties"]["Offhand"] = {"type": "string", "x-gentable-foreignKey": ["Weapon", "Shield"]}
s["required"].append("Weapon")
unit("foreign-key-plain",
     "1,Archer,Red,10,,Bow,\n2,Knight,Blue,30,,Sword,Buckler\n3,Mage,Red,10,,Swrod,\n4,Monk,Red,10,,Staff,Tower\n5,Page,Red,10,,Bow,\n",
     schema=s, hdr="Id,Name,Side,Hp,Tags,Weapon,Offhand\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV,
            "schema/Shield.schema.json": {"type": "object", "x-gentable-primaryKey": "Id", "properties": {"Id": {"type": "string"}}, "required": ["Id"]},
            "Table/Shield.csv": "Id\nBuckler\nKite\n"},
     readme="GT0304: a plain field (Weapon, hint: closest keys) and a field that may name either of two tables (Offhand: Weapon or Shield). "
            "An empty optional reference (row 6, Offhand) is fine (an empty required one is GT0204, see missing-value).")
s = unit_schema()
s["properties"]["Weapons"] = {"type": "array", "items": {"type": "string", "x-gentable-foreignKey": "Weapon"}}
unit("foreign-key-array", "1,Archer,Red,10,,Bow|Spear\n2,Knight,Blue,30,,Sword|Axe|Bow\n3,Mage,Red,10,,\n",
     schema=s, hdr="Id,Name,Side,Hp,Tags,Weapons\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV},
     readme="GT0304 for one element of an array field (Axe); an empty array is fine.")
s = unit_schema()
s["$defs"]["Loadout"] = {"type": "object", "properties": {"Slot": {"type": "integer"}, "Item": {"type": "string", "x-gentable-foreignKey": "Weapon"}}, "required": ["Slot", "Item"]}
s["properties"]["Main"] = {"$ref": "#/$defs/Loadout"}
s["properties"]["Spare"] = {"type": "array", "items": {"$ref": "#/$defs/Loadout"}}
unit("foreign-key-nested", '1,Archer,Red,10,,"(0,Bow)","(1,Spear)"\n2,Knight,Blue,30,,"(0,Sward)","(1,Bow)|(2,Club)"\n',
     schema=s, hdr="Id,Name,Side,Hp,Tags,Main,Spare\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV},
     readme="GT0304 inside a nested record (Main.Item) and inside records in an array (Spare[].Item).")

# Rules.
s = unit_schema()
s["properties"]["Weapon"] = {"type": "string", "x-gentable-foreignKey": "Weapon"}
s["x-gentable-rules"] = [
    {"rule": "row.Hp >= byKey.Weapon[row.Weapon].Power * 2", "message": "${row.Name} has ${row.Hp} Hp, too few for a ${row.Weapon} (needs ${byKey.Weapon[row.Weapon].Power * 2})", "field": "Hp"},
    {"rule": "row.Side != 'Blue' || row.Name.startsWith('B')", "message": "blue units are named B…"},
    {"scope": "table", "rule": "rows.filter(r, r.Side == 'Red').size() == rows.filter(r, r.Side == 'Blue').size()",
     "message": "both sides need as many units (Red ${rows.filter(r, r.Side == 'Red').size()}, Blue ${rows.filter(r, r.Side == 'Blue').size()})"},
    {"rule": "row.Hp <= tables.Const.MaxHp", "message": "Hp above Const.MaxHp = ${tables.Const.MaxHp}"},
]
unit("rule-failure", "1,Archer,Red,10,,Bow\n2,Brute,Blue,30,,Sword\n3,Knight,Blue,8,,Sword\n4,Mage,Red,900,,Bow\n5,Monk,Red,20,,Spear\n",
     schema=s, hdr="Id,Name,Side,Hp,Tags,Weapon\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV,
            "schema/Const.schema.json": {"type": "object", "x-gentable-mode": "one", "properties": {"MaxHp": {"type": "integer"}}, "required": ["MaxHp"]},
            "Table/Const.csv": "MaxHp\n500\n"},
     readme="GT0310 (row rules: with the one field they read or their `field`, else the whole row) and GT0311 (a table rule); "
            "messages interpolate ${CEL}. Rules read byKey.Weapon and the singleton tables.Const.")
s = unit_schema()
s["x-gentable-rules"] = [
    {"rule": "row.Hp > ", "message": "broken"},
    {"rule": "row.Hpp > 0", "message": "typo in a field"},
    {"rule": "tables.Weapn.size() > 0", "message": "typo in a table"},
    {"rule": "row.Hp > 0", "scope": "tabel", "message": "bad scope"},
]
unit("rule-does-not-compile", OK_ROWS, schema=s, readme="GT0312: rules that do not compile or name unknown fields/tables are schema errors naming the schema file.")
s = unit_schema()
s["properties"]["Bonus"] = {"type": "integer"}
s["x-gentable-rules"] = [
    {"rule": "row.Bonus < row.Hp", "message": "Bonus must stay below Hp"},
    {"rule": "row.Name", "message": "not a boolean"},
]
unit("rule-evaluation-error", "1,Archer,Red,10,,3\n2,Knight,Blue,30,,\n", schema=s, hdr="Id,Name,Side,Hp,Tags,Bonus\n",
     readme="GT0313: a rule reads an absent optional field without has(), and a rule that is not a boolean.")

# Warnings.
LANG = {"type": "object", "x-gentable-primaryKey": "Key", "x-gentable-unreferenced": {"severity": "warning", "except": ["Side_Red"]},
        "properties": {"Key": {"type": "string"}, "zh": {"type": "string"}, "en": {"type": "string"}}, "required": ["Key", "zh", "en"]}
s = unit_schema()
s["properties"]["NameKey"] = {"type": "string", "x-gentable-foreignKey": "Lang"}
s["x-gentable-rules"] = [{"rule": "row.Hp >= 10", "message": "weak unit (${row.Hp} Hp)", "severity": "warning"}]
warn_files = {"schema/Lang.schema.json": LANG, "Table/Lang.csv": "Key,zh,en\nUnit_Archer,弓手,Archer\nUnit_Knight,骑士,Knight\nUnit_Old,旧,Old\nSide_Red,红方,Red\n"}
for name, args, readme in [("warning", None, "GT0320 (an unreferenced Lang key, x-gentable-unreferenced) and a rule with severity warning: exit 0."),
                           ("warning-denied", "--deny warnings", "The same project with --deny warnings: the warnings become errors, exit 1.")]:
    unit(name, "1,Archer,Red,10,,Unit_Archer\n2,Knight,Blue,5,,Unit_Knight\n", schema=s, hdr="Id,Name,Side,Hp,Tags,NameKey\n", extra=warn_files, args=args, readme=readme)

# Schemas.
unit("invalid-schema", OK_ROWS, schema={"type": "array", "items": {"type": "string"}}, readme="GT0403: a table schema must describe one row (type object).")
unit("invalid-schema-json", OK_ROWS, schema='{"type": "object", "properties": {"Id": {"type": "integer"},}}\n', readme="GT0401: the schema is not valid JSON.")
s = unit_schema()
s["properties"]["Weapon"] = {"type": "string", "x-gentable-foreignKey": "Weapons"}
unit("bad-foreign-key-declaration", "1,Archer,Red,10,,Bow\n", schema=s, hdr="Id,Name,Side,Hp,Tags,Weapon\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV}, readme="GT0305: x-gentable-foreignKey names a table that does not exist.")

# Scale: many errors of one kind are capped.
rows = "".join(f"{i},Unit{i},Red,x{i},\n" for i in range(1, 31))
unit("many-errors", rows, args="--max-per-kind 5", readme="30 GT0201 errors with --max-per-kind 5: human and github show 5 and count the other 25; JSON shows all.")
s = unit_schema(x_gentable_view={"kind": "grid", "title": "Units by Hp", "x": "Hp", "y": "Idd", "label": "Name"})
unit("bad-view", OK_ROWS, schema=s,
     readme="GT0407: an x-gentable-view (the pictures of gentable report) names a field that does not exist; the hint names the closest.")

# Designer-friendly hints (docs/conventions.md §3 "Full-width characters").
unit("full-width", OK_ROWS + "３,Mage,Red,１２,1｜2\n", readme="GT0201: full-width digits and separators are named, and the half-width cell is offered.")
s = unit_schema()
s["properties"]["Weapon"] = {"type": "string", "x-gentable-foreignKey": "Weapon"}
unit("foreign-key-case", "1,Archer,Red,10,,bow\n2,Knight,Blue,30,,Ｓｐｅａｒ\n", schema=s, hdr="Id,Name,Side,Hp,Tags,Weapon\n",
     extra={"schema/Weapon.schema.json": WEAPON, "Table/Weapon.csv": WEAPON_CSV},
     readme="GT0304: a reference that differs from an existing key only by case or width says so.")
unit("near-duplicate-key", "", schema={**WEAPON}, hdr="",
     extra={"schema/Unit.schema.json": WEAPON, "Table/Unit.csv": "Id,Power\nBow,3\nbow,4\nIron Guard,5\nIronGuard,6\n"},
     readme="GT0306 (warning): primary keys that differ only by case or spaces.")

# One case per remaining data code, so that every message of them is golden in English and Chinese.
unit("unused-override", OK_ROWS, extra={"gentable.toml": TOML + "\n[tables.Unti]\nheader_row = 1\n"},
     readme="GT0003 (warning): a [tables.<Name>] section for a table no file provides.")
unit("bad-encoding", "", hdr="", extra={"Table/Unit.csv": (UNIT_HDR + OK_ROWS).encode() + b"3,Ma\xffge,Red,10,\n"},
     readme="GT0102: bytes that are not UTF-8, at their cell.")
unit("utf16-without-bom", "", hdr="", extra={"Table/Unit.csv": (UNIT_HDR + OK_ROWS).replace(",", "\t").encode("utf-16-le")},
     readme="GT0102 once, at the file: Excel's \"Unicode Text\" (UTF-16LE, tab-separated) re-saved without its byte-order mark. The message says what the file is, the help names [tables.Unit] and the encoding and delimiter that read it; no cell or header errors follow.")
unit("malformed-csv", OK_ROWS + '3,"Mage,Red,10,\n4,Monk,Red,10,\n', readme="GT0103: a quote that is never closed.")
unit("fraction-in-integer", OK_ROWS + "3,Mage,Red,7.5,\n", readme="GT0206: a fraction in an integer field.")
unit("no-header", "", hdr="# only comments\n# here\n", readme="GT0214: no header row.")
unit("singleton-rows", "", hdr="", extra={
        "schema/Unit.schema.json": {"type": "object", "x-gentable-mode": "one", "properties": {"MaxHp": {"type": "integer"}}, "required": ["MaxHp"]},
        "Table/Unit.csv": "MaxHp\n10\n20\n"},
     readme="GT0215: a singleton table (x-gentable-mode one) with two rows.")
s = unit_schema()
s["properties"]["MaxSteps"] = {"type": "integer"}
s["properties"]["max_steps"] = {"type": "integer"}
unit("name-collision", "1,Archer,Red,10,,1,2\n", schema=s, hdr="Id,Name,Side,Hp,Tags,MaxSteps,max_steps\n",
     readme="GT0216: two fields that become one identifier.")
unit("missing-schema", OK_ROWS, extra={"Table/Weapon.csv": WEAPON_CSV}, readme="GT0402: a table without a schema.")
s = unit_schema()
s["properties"]["Hp"]["default"] = "ten"
unit("bad-default-type", OK_ROWS + "3,Mage,Red,,\n", schema=s, readme="GT0404 once, at the schema: a default that does not fit its type (taken by the empty Hp of row 4).")
unit("type-name-clash", OK_ROWS, extra={
        "schema/Side.schema.json": {"type": "object", "x-gentable-primaryKey": "Id", "properties": {"Id": {"type": "string"}}, "required": ["Id"]},
        "Table/Side.csv": "Id\nRed\nBlue\n"},
     readme="GT0405: a table named like an enum of another schema.")
LANG_TOML = TOML + '\n[localization]\ntable = "Lang"\nkey = "Key"\nlanguages = ["zh", "en"]\n'
LANG_SCHEMA = {"type": "object", "x-gentable-primaryKey": "Key", "properties": {"Key": {"type": "string"}, "zh": {"type": "string"}, "en": {"type": "string"}}, "required": ["Key"]}
s = unit_schema()
s["properties"]["NameKey"] = {"type": "string", "x-gentable-text": True}
unit("text-keys", "1,Archer,Red,10,,Unit_Archer\n2,Knight,Blue,30,,Unit_Knigt\n", schema=s, hdr="Id,Name,Side,Hp,Tags,NameKey\n",
     extra={"gentable.toml": LANG_TOML, "schema/Lang.schema.json": LANG_SCHEMA,
            "Table/Lang.csv": "Key,zh,en\nUnit_Archer,弓箭手,\nUnit_Knight,骑士,Knight\n"},
     readme="GT0330: a text key the Lang table lacks; GT0331 (warning): a text without its en translation.")
unit("bad-localization", OK_ROWS, extra={"gentable.toml": TOML + '\n[localization]\ntable = "Lang"\nkey = "Key"\nlanguages = ["zh", "jp"]\n',
        "schema/Lang.schema.json": LANG_SCHEMA, "Table/Lang.csv": "Key,zh,en\nUnit_Archer,弓箭手,Archer\n"},
     readme="GT0332: [localization] names a language column that does not exist.")
# Schemas that say what a column holds in ways gentable cannot type, each refused with the keyword named.
s = unit_schema()
s["properties"]["Note"] = {"not": {"type": "null"}}
s["properties"]["Hp"] = {"minimum": 0, "maxLength": 3}
unit("untyped-schema", OK_ROWS, schema=s, readme="GT0410: keywords that decide no type (not), and keywords of two types at once (minimum and maxLength); each message names them and the fix.")
s = unit_schema()
s["properties"]["Hp"] = {"allOf": [{"type": "integer"}, {"type": "string"}]}
unit("conflicting-types", OK_ROWS, schema=s, readme="GT0411: the allOf parts of Hp allow no common value.")
s = unit_schema()
s["properties"]["Side"] = {"$ref": "#/$defs/Sied"}
unit("unresolved-ref", OK_ROWS, schema=s, readme="GT0412: a $ref whose pointer names nothing in the schema folder.")
s = unit_schema()
s["properties"]["Side"] = {"$ref": "https://example.com/side.schema.json"}
unit("remote-ref", OK_ROWS, schema=s, readme="GT0412: a $ref to a URL: nothing is fetched, the message says where the $ref is and what to do.")
s = unit_schema()
s["$schema"] = "https://example.com/meta/custom.json"
unit("remote-meta-schema", OK_ROWS, schema=s, readme="GT0412: a $schema naming a custom meta-schema at a URL: nothing is fetched, the message says what to write instead.")
s = unit_schema()
s["properties"]["Hp"] = False
unit("accepts-nothing", OK_ROWS, schema=s, readme="GT0413: the schema false accepts no cell.")
s = unit_schema()
s["properties"]["Pos"] = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": ["integer", "null"]}], "minItems": 1, "items": False}
unit("unsupported-shape", OK_ROWS, schema=s, readme="GT0414: a tuple item that may be null after minItems (a left-out item and a null one would read the same).")
s = unit_schema()
s["properties"]["Name"] = {"type": "string", "format": "hero-name"}
unit("unsupported-format", OK_ROWS, schema=s, readme="GT0415: a custom string format gentable does not check is refused, not ignored; the message lists the supported formats.")
s = unit_schema()
s["properties"]["Hp"] = {"type": "integer", "minimum": 0, "maximum": 1000, "default": 5000}
unit("bad-default", "1,Archer,Red,,\n2,Knight,Blue,,\n3,Mage,Red,,\n", schema=s, readme="GT0404 once, at the schema: the default 5000 breaks its own maximum (three rows take it; none is reported).")
