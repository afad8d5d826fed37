#!/usr/bin/env python3
"""Writes the inputs of the fidelity suite (tests/fidelity/<case>/): gentable.toml, Table/, schema/, README.md.

Run from the repository root: python3 tests/fidelity/make_cases.py tests/fidelity
Workbooks are written as their XML parts (Table/<Book>.xlsx.parts/...), byte for byte as the case needs them;
tests/common/fidelity.rs zips them (adding the package boilerplate). The expected outputs are not written
here: GENTABLE_BLESS=1 cargo test --test fidelity writes them after review.
"""
import json, os, sys, shutil
from xml.sax.saxutils import escape

ROOT = sys.argv[1] if len(sys.argv) > 1 else "tests/fidelity"
CASES = []


def case(name, policy, readme, toml_extra="", tables=None, schemas=None, binary=None):
    CASES.append(name)
    d = os.path.join(ROOT, name)
    for sub in ("Table", "schema"):
        shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
    os.makedirs(os.path.join(d, "Table"), exist_ok=True)
    os.makedirs(os.path.join(d, "schema"), exist_ok=True)
    snake = name.replace("-", "_")
    pascal = "".join(w.capitalize() for w in name.split("-"))
    ns = toml_extra_ns = None
    toml = f'''# Fidelity case: {policy}
[project]
name = "{pascal}"

[rust]
crate_name = "fidelity_{snake}"
'''
    if "[csharp]" not in toml_extra:
        toml += f'\n[csharp]\nnamespace = "Fidelity.{pascal}"\n'
    toml += toml_extra
    write(os.path.join(d, "gentable.toml"), toml)
    write(os.path.join(d, "README.md"), f"# {name}\n\nPolicy (docs/conventions.md §7): **{policy}**\n\n{readme.strip()}\n")
    for path, content in (tables or {}).items():
        p = os.path.join(d, "Table", path)
        if isinstance(content, dict):  # xlsx parts
            for part, xml in content.items():
                write(os.path.join(p + ".parts", part), xml)
        else:
            write(p, content)
    for path, content in (binary or {}).items():
        p = os.path.join(d, "Table", path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(content)
    for name_, s in (schemas or {}).items():
        write(os.path.join(d, "schema", name_ + ".schema.json"), json.dumps(s, ensure_ascii=False, indent=2) + "\n")


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def schema(props, required=(), pk=None, **extra):
    s = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": props}
    if required:
        s["required"] = list(required)
    if pk:
        s["x-gentable-primaryKey"] = pk
    s.update(extra)
    return s


# --- xlsx parts --------------------------------------------------------------------------------------------

def workbook(sheets, date1904=False, calc=""):
    pr = '<workbookPr date1904="1"/>' if date1904 else "<workbookPr/>"
    sh = "".join(
        f'<sheet name="{escape(n)}" sheetId="{i + 1}"{state} r:id="rId{i + 1}"/>'
        for i, (n, state) in enumerate((s if isinstance(s, tuple) else (s, "")) for s in sheets)
    )
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            f"{pr}<sheets>{sh}</sheets>{calc}</workbook>")


def s(ref, text):
    sp = ' xml:space="preserve"' if text != text.strip() or "\n" in text else ""
    return f'<c r="{ref}" t="inlineStr"><is><t{sp}>{escape(text)}</t></is></c>'


def n(ref, v, style=None):
    st = f' s="{style}"' if style is not None else ""
    return f'<c r="{ref}"{st}><v>{v}</v></c>'


def row(r, cells, hidden=False):
    h = ' hidden="1"' if hidden else ""
    return f'<row r="{r}"{h}>{"".join(cells)}</row>'


def sheet(rows, cols="", merges=()):
    m = ""
    if merges:
        m = f'<mergeCells count="{len(merges)}">' + "".join(f'<mergeCell ref="{x}"/>' for x in merges) + "</mergeCells>"
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f'{cols}<sheetData>{"".join(rows)}</sheetData>{m}</worksheet>')


def styles(xfs, numfmts=None):
    """xfs: numFmtId of each cellXfs entry (entry 0 is the default, General)."""
    nf = ""
    if numfmts:
        nf = f'<numFmts count="{len(numfmts)}">' + "".join(
            f'<numFmt numFmtId="{i}" formatCode="{escape(c, {chr(34): "&quot;"})}"/>' for i, c in numfmts.items()) + "</numFmts>"
    apply = ' applyNumberFormat="1"'
    x = "".join(f'<xf numFmtId="{i}" fontId="0" fillId="0" borderId="0"{apply if i else ""}/>' for i in xfs)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f'{nf}<fonts count="1"><font/></fonts><fills count="1"><fill/></fills><borders count="1"><border/></borders>'
            '<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>'
            f'<cellXfs count="{len(xfs)}">{x}</cellXfs></styleSheet>')


def book(sheets, parts, date1904=False, calc="", style=None, strings=None):
    out = {"xl/workbook.xml": workbook(sheets, date1904, calc)}
    for i, p in enumerate(parts):
        out[f"xl/worksheets/sheet{i + 1}.xml"] = p
    if style:
        out["xl/styles.xml"] = style
    if strings is not None:
        out["xl/sharedStrings.xml"] = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                                       f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(strings)}" uniqueCount="{len(strings)}">'
                                       + "".join(f"<si>{x}</si>" for x in strings) + "</sst>")
    return out


STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}

# --- 1. line endings ---------------------------------------------------------------------------------------

notes = schema({"Id": INT, "Line": STR}, ["Id", "Line"], "Id")
readme_le = """A quoted CSV field with a line break, a lone CR, and an `_x000D_` in a workbook all become `\\n`: an LF
and a CRLF checkout of the same repository (`core.autocrlf`) give byte-identical data and content hashes.
`line-endings-lf` and `line-endings-crlf` are twins (tests/fidelity/twins.txt)."""
csv_lf = 'Id,Line\n1,"two\nlines"\n2,"lone\rcr"\n3,plain\n'
case("line-endings-lf", "line endings inside text are normalised to \\n", readme_le,
     tables={"Notes.csv": csv_lf}, schemas={"Notes": notes})
case("line-endings-crlf", "line endings inside text are normalised to \\n", readme_le,
     tables={"Notes.csv": csv_lf.replace("\n", "\r\n").replace("\r\r\n", "\r\n")}, schemas={"Notes": notes})
case("line-endings-xlsx", "line endings inside text are normalised to \\n",
     "Excel writes a line break typed as Alt+Enter after a CR as `_x000D_\\n` in the shared strings: the cell is "
     "`Line A\\nLine B`, as in the CSV cases.",
     tables={"Notes.xlsx": book(["Notes"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Line")]),
         row(2, [n("A2", 1), '<c r="B2" t="s"><v>0</v></c>']),
         row(3, [n("A3", 2), '<c r="B3" t="s"><v>1</v></c>'])])],
         strings=['<t xml:space="preserve">Line A_x000D_\nLine B</t>', "<t>plain</t>"])},
     schemas={"Notes": notes})

# --- 2. NFC ------------------------------------------------------------------------------------------------

NFC, NFD = "Am\u00e9lie", "Ame\u0301lie"
case("nfc-keys", "text is normalised to Unicode NFC on read (keys, foreign keys, enum members, free text)",
     f"`{NFC}` is written in NFC (C3 A9) as a key and in NFD (65 CC 81) as a foreign key and an enum member: "
     "they are one word. The canonical data holds NFC only.",
     tables={"Hero.csv": f"Id,Name,Mood\n{NFC},Hero one,calm\n", "Quote.csv": f"Id,Hero,Mood,Text\n1,{NFD},{NFD},{NFD} says hi\n"},
     schemas={"Hero": schema({"Id": STR, "Name": STR, "Mood": {"$ref": "common.schema.json#/$defs/Mood"}}, ["Id"], "Id"),
              "Quote": schema({"Id": INT, "Hero": {"type": "string", "x-gentable-foreignKey": "Hero"},
                               "Mood": {"$ref": "common.schema.json#/$defs/Mood"}, "Text": STR}, ["Id", "Hero"], "Id"),
              "common": {"$defs": {"Mood": {"type": "string", "enum": ["calm", NFC]}}}})
case("nfc-duplicate-key", "text is normalised to Unicode NFC on read (keys, foreign keys, enum members, free text)",
     f"`{NFC}` (NFC) and `{NFD}` (NFD) look the same to the designer: as keys they are a duplicate (GT0302), not two rows.",
     tables={"Hero.csv": f"Id,Name\n{NFC},first\n{NFD},second\n"},
     schemas={"Hero": schema({"Id": STR, "Name": STR}, ["Id"], "Id")})

# --- 3. white space ----------------------------------------------------------------------------------------

case("whitespace-only-text", "white-space-only text is kept exactly",
     "A string cell holding only a space, a no-break space (U+00A0) or an ideographic space (U+3000) is that text, "
     "not absent (docs/conventions.md: \"the text exactly as written\"); an empty cell is absent; a number cell "
     "of white space is empty.",
     tables={"Label.csv": "Id,Text,Note,Count\n1, ,\u00a0,\n2,\u3000,,\u00a0\n3,x,,3\n"},
     schemas={"Label": schema({"Id": INT, "Text": STR, "Note": STR, "Count": INT}, ["Id", "Text"], "Id")})

# --- 4. formulas -------------------------------------------------------------------------------------------

calc_style = styles([0])
case("formula-cached-results", "a formula gives the result its file stores, at Excel's 15 significant digits",
     "Formula cells with a stored result (`<f>` and `<v>`) give that result. A result with binary noise is exported "
     "as Excel shows it: `0.1+0.2` stored as 0.30000000000000004 is 0.3 in a number field, `=0.1*30` stored as "
     "3.0000000000000004 is 3 in an integer field; a string field gets the number's shown text.",
     tables={"Calc.xlsx": book(["Calc"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Sum"), s("C1", "Whole"), s("D1", "Text")]),
         row(2, [n("A2", 1), '<c r="B2"><f>0.1+0.2</f><v>0.30000000000000004</v></c>',
                 '<c r="C2"><f>0.1*30</f><v>3.0000000000000004</v></c>', '<c r="D2"><f>0.1+0.2</f><v>0.30000000000000004</v></c>']),
         row(3, [n("A3", 2), n("B3", "1.0000000000000002"), n("C3", "7"), '<c r="D3" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>'])])])},
     schemas={"Calc": schema({"Id": INT, "Sum": NUM, "Whole": INT, "Text": STR}, ["Id"], "Id")})
case("formula-without-result", "a formula without a stored result is an error naming the cell and the formula",
     "`<c r=\"C3\"><f>A3*2</f></c>` with no `<v>` (files written by scripts and libraries without a calculation "
     "engine): an error at the cell naming the formula, in a required and in an optional field alike; never an "
     "absent value or \"the cell is empty\".",
     tables={"Calc.xlsx": book(["Calc"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Need"), s("C1", "Maybe")]),
         row(2, [n("A2", 1), n("B2", 2), '<c r="C2"><f>A2*2</f></c>']),
         row(3, [n("A3", 2), '<c r="B3"><f>SUM(A2:A3)</f></c>', n("C3", 4)])])])},
     schemas={"Calc": schema({"Id": INT, "Need": INT, "Maybe": INT}, ["Id", "Need"], "Id")})
case("formula-recalc-on-load", "a formula without a stored result is an error naming the cell and the formula",
     "A workbook that asks to be recalculated on load (`<calcPr fullCalcOnLoad=\"1\"/>`, as rust_xlsxwriter, "
     "XlsxWriter and openpyxl write them) stores placeholders (`0`) as formula results: they are errors too.",
     tables={"Calc.xlsx": book(["Calc"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Double")]),
         row(2, [n("A2", 1), '<c r="B2"><f>A2*2</f><v>0</v></c>']),
         row(3, [n("A3", 2), n("B3", 4)])])], calc='<calcPr calcId="124519" fullCalcOnLoad="1"/>')},
     schemas={"Calc": schema({"Id": INT, "Double": INT}, ["Id", "Double"], "Id")})
case("excel-error-cell", "an Excel error cell is an error naming the cell",
     "`<c t=\"e\"><v>#N/A</v></c>` (a formula whose result is an error) is GT0207 at the cell, in any field.",
     tables={"Calc.xlsx": book(["Calc"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Price"), s("C1", "Name")]),
         row(2, [n("A2", 1), '<c r="B2" t="e"><f>VLOOKUP(A2,X!A:B,2,0)</f><v>#N/A</v></c>', '<c r="C2" t="e"><v>#DIV/0!</v></c>'])])])},
     schemas={"Calc": schema({"Id": INT, "Price": NUM, "Name": STR}, ["Id"], "Id")})
case("excel-16-digits", "numbers are exported as Excel shows them, at 15 significant digits",
     "Excel keeps 15 significant digits: 12345678901234567 is stored (and shown) as 12345678901234600, so an integer "
     "of more than 15 digits in a number cell is an error (type it as text), never a silently different id.",
     tables={"Ids.xlsx": book(["Ids"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Big")]),
         row(2, [n("A2", 1), n("B2", "1.2345678901234568E+16")]),
         row(3, [n("A3", 2), n("B3", "999999999999999")])])])},
     schemas={"Ids": schema({"Id": INT, "Big": {"type": "integer", "format": "int64"}}, ["Id"], "Id")})

# --- 5. dates ----------------------------------------------------------------------------------------------

DATE_SCHEMA = schema({
    "Id": INT,
    "Day": {"type": "string", "format": "date"},
    "At": {"type": "string", "format": "date-time", "x-gentable-timeZone": "+08:00"},
    "Reset": {"type": "string", "format": "time", "x-gentable-timeZone": "+08:00"},
    "Lasts": {"type": "string", "format": "duration"},
}, ["Id"], "Id")
# xf 1: m/d/yyyy (14), 2: m/d/yyyy h:mm (22), 3: h:mm:ss (21), 4: [h]:mm:ss (46)
date_style = styles([0, 14, 22, 21, 46])


def date_rows(shift):
    # (Id, day serial, date-time serial, time serial, duration serial); shift = 1462 for the 1904 system.
    vals = [
        (1, 45413, "45413.5", "0.20833333333333334", "1.5"),            # 2024-05-01, 12:00, 05:00, 36 h
        (2, 36585, "36585.000011574074", "0.50000694444444446", "0.000011574074074074073"),  # 2000-02-29 00:00:01; 12:00:00.6 shows 12:00:00
        (3, 2958465, "45413.999988425923", "0.99998842592", "0.041666666666666664"),       # 9999-12-31; 23:59:59 after rounding to ms
    ]
    out = [row(1, [s("A1", "Id"), s("B1", "Day"), s("C1", "At"), s("D1", "Reset"), s("E1", "Lasts")])]
    for i, (id_, day, at, t, d) in enumerate(vals):
        r = i + 2
        day_v = day - shift
        at_v = repr(float(at) - shift) if shift else at
        out.append(row(r, [n(f"A{r}", id_), n(f"B{r}", day_v, 1), n(f"C{r}", at_v, 2), n(f"D{r}", t, 3), n(f"E{r}", d, 4)]))
    return out


readme_dates = """Date, time and date-time cells are converted from their serial number exactly as Excel shows them, in the
workbook's own date system (1900, counting Excel's fictitious 1900-02-29; or 1904 from
`<workbookPr date1904="1"/>`, whose serials are 1462 days smaller): times are rounded to Excel's millisecond, then fractions of a second are
truncated as Excel displays them (12:00:00.600 shows as 12:00:00); a serial without an offset takes the field's
`x-gentable-timeZone`. `excel-dates-1900` and `excel-dates-1904` are twins: the same table in both systems."""
case("excel-dates-1900", "date and time cells are converted exactly as Excel shows them, in the workbook's date system",
     readme_dates, tables={"Dates.xlsx": book(["Dates"], [sheet(date_rows(0))], style=date_style)},
     schemas={"Dates": DATE_SCHEMA})
case("excel-dates-1904", "date and time cells are converted exactly as Excel shows them, in the workbook's date system",
     readme_dates, tables={"Dates.xlsx": book(["Dates"], [sheet(date_rows(1462))], date1904=True, style=date_style)},
     schemas={"Dates": DATE_SCHEMA})
case("excel-dates-not-shown", "date and time cells are converted exactly as Excel shows them, in the workbook's date system",
     "Cells whose value Excel would not show as the field's type are errors: serial 60 (Excel's fictitious "
     "1900-02-29), a date with a time of day in a date field, a time of day with a date in a time field, a date "
     "cell in a number field (never its serial).",
     tables={"Dates.xlsx": book(["Dates"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Day"), s("C1", "Reset"), s("D1", "Count")]),
         row(2, [n("A2", 1), n("B2", 60, 1), n("C2", "0.5", 3), n("D2", 3)]),
         row(3, [n("A3", 2), n("B3", "45413.5", 2), n("C3", "45413.25", 2), n("D3", 45413, 1)])])], style=date_style)},
     schemas={"Dates": schema({"Id": INT, "Day": {"type": "string", "format": "date"},
                               "Reset": {"type": "string", "format": "time", "x-gentable-timeZone": "UTC"},
                               "Count": INT}, ["Id"], "Id")})
case("dates-and-times-as-text", "dates and times are typed precisely: format date, time, date-time",
     "Text cells of `format: date` (`2024-05-01`, `2024/5/1`), `format: time` (`05:00`, `05:00:00+08:00`, UTC "
     "canonical) and `format: date-time`; a month-first date or a fraction of a second is an error elsewhere, "
     "never guessed.",
     tables={"When.csv": "Id,Day,At,Reset\n1,2024-05-01,2024-05-01T12:00:00+08:00,05:00\n2,2024/5/1,2024-05-01 04:00:00Z,21:00:00Z\n3,0001-01-01,9999-12-31T23:59:59Z,23:59:59+08:00\n"},
     schemas={"When": schema({"Id": INT, "Day": {"type": "string", "format": "date"},
                              "At": {"type": "string", "format": "date-time"},
                              "Reset": {"type": "string", "format": "time", "x-gentable-timeZone": "+08:00"}},
                             ["Id", "Day", "At", "Reset"], "Id")})

# --- 6. number formats -------------------------------------------------------------------------------------

case("number-format-display", "a number shown through its number format is taken as shown, with a warning",
     "A string field takes the text Excel shows: 7 formatted `000` is `007`, 7 formatted `0.00` is `7.00`, with a "
     "warning (GT0209) that the cell holds a number; a format gentable cannot reproduce (`# ?/?`) is warned about "
     "and gives the plain number; a date cell gives its ISO 8601 text, with a warning. A number field takes the "
     "number (7), whatever its format.",
     tables={"Codes.xlsx": book(["Codes"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Code"), s("C1", "Amount"), s("D1", "Label")]),
         row(2, [n("A2", 1), n("B2", 7, 1), n("C2", 7, 1), n("D2", 7, 2)]),
         row(3, [n("A3", 2), n("B3", "0.5", 3), n("C3", "0.5", 3), n("D3", 45413, 4)]),
         row(4, [n("A4", 3), n("B4", 42), n("C4", 42), s("D4", "text")])])],
         style=styles([0, 164, 2, 12, 14], {164: "000"}))},
     schemas={"Codes": schema({"Id": INT, "Code": STR, "Amount": NUM, "Label": STR}, ["Id"], "Id")})

# --- 7. hidden rows, columns, sheets -----------------------------------------------------------------------

case("hidden-rows-and-columns", "hidden rows and columns are exported with a warning",
     "Rows 3-4 hidden (by hand, a filter or a collapsed outline) and column C hidden: they ship like every row and "
     "column, each run of rows and the columns with one warning (GT0218). A hidden comment row says nothing.",
     tables={"Items.xlsx": book(["Items"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Name"), s("C1", "Price")]),
         row(2, [n("A2", 1), s("B2", "shown"), n("C2", 10)]),
         row(3, [n("A3", 2), s("B3", "test row"), n("C3", 0)], hidden=True),
         row(4, [n("A4", 3), s("B4", "test row"), n("C4", 0)], hidden=True),
         row(5, [s("A5", "#comment"), s("B5", "hidden comment")], hidden=True),
         row(6, [n("A6", 4), s("B6", "shown"), n("C6", 20)])],
         cols='<cols><col min="3" max="3" width="0" hidden="1"/></cols>')])},
     schemas={"Items": schema({"Id": INT, "Name": STR, "Price": INT}, ["Id"], "Id")})
case("hidden-sheet", "hidden sheets are not read unless selected",
     "`Scratch` is a hidden sheet (`state=\"hidden\"`) with no schema: it is not read. `Legacy` is very hidden but "
     "selected by `[tables.Old] sheets = [\"Legacy\"]`: it is read.",
     toml_extra='\n[tables.Old]\nsheets = ["Legacy"]\n',
     tables={"Book.xlsx": book(["Items", ("Scratch", ' state="hidden"'), ("Legacy", ' state="veryHidden"')], [
         sheet([row(1, [s("A1", "Id"), s("B1", "Name")]), row(2, [n("A2", 1), s("B2", "sword")])]),
         sheet([row(1, [s("A1", "whatever")]), row(2, [s("A2", "notes")])]),
         sheet([row(1, [s("A1", "Id")]), row(2, [n("A2", 9)])])])},
     schemas={"Items": schema({"Id": INT, "Name": STR}, ["Id"], "Id"), "Old": schema({"Id": INT}, ["Id"], "Id")})

# --- 8. merges ---------------------------------------------------------------------------------------------

case("merged-header-list", "every column a merged header covers is read",
     "A header merged over C1:E1 (Luban's multi-column list, or a title over several columns) names every column "
     "it covers: the array field gets the elements of C, D and E.",
     tables={"Unit.xlsx": book(["Unit"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Name"), s("C1", "Tags")]),
         row(2, [n("A2", 1), s("B2", "archer"), s("C2", "fast"), s("D2", "ranged"), s("E2", "cheap")]),
         row(3, [n("A3", 2), s("B3", "knight"), s("C3", "slow"), s("E3", "armored")])], merges=["C1:E1"])])},
     schemas={"Unit": schema({"Id": INT, "Name": STR, "Tags": {"type": "array", "items": STR}}, ["Id"], "Id")})
case("merged-header-scalar", "every column a merged header covers is read",
     "A header merged over B1:C1 whose field is a string: its second column cannot be read into it, so the merge "
     "is an error (GT0213) naming the range, not a lost column.",
     tables={"Unit.xlsx": book(["Unit"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Name")]),
         row(2, [n("A2", 1), s("B2", "archer"), s("C2", "of the north")])], merges=["B1:C1"])])},
     schemas={"Unit": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})
case("merged-data-cell", "a merged range over data cells is a located error",
     "A4:A5 merged holds one id, B4:B5 one optional note: Excel shows them across both rows, but row 5's cells "
     "are empty in the file. Each range is one error (GT0219) at its top-left cell naming the range; the covered "
     "cells are not also \"missing\".",
     tables={"Items.xlsx": book(["Items"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Note"), s("C1", "Name")]),
         row(2, [n("A2", 1), s("B2", "x"), s("C2", "one")]),
         row(4, [n("A4", 2), s("B4", "shared"), s("C4", "two")]),
         row(5, [s("C5", "three")])], merges=["A4:A5", "B4:B5"])])},
     schemas={"Items": schema({"Id": INT, "Note": STR, "Name": STR}, ["Id"], "Id")})
case("merged-list-reference", "foreign keys are checked wherever the schema puts them, at the value's own cell",
     "A foreign-key list spread over C:E by a merged header: the missing key `boots` sits in E2, and the error names "
     "E2, not the list's first, valid, cell.",
     tables={"Loot.xlsx": book(["Loot"], [sheet([
         row(1, [s("A1", "Id"), s("B1", "Name"), s("C1", "Items")]),
         row(2, [n("A2", 1), s("B2", "chest"), s("C2", "sword"), s("D2", "shield"), s("E2", "boots")])], merges=["C1:E1"])]),
         "Item.csv": "Id\nsword\nshield\n"},
     schemas={"Loot": schema({"Id": INT, "Name": STR, "Items": {"type": "array", "items": {"type": "string", "x-gentable-foreignKey": "Item"}}}, ["Id"], "Id"),
              "Item": schema({"Id": STR}, ["Id"], "Id")})
case("empty-header-value", "a value under an empty header is warned about",
     "Column D has no header, so it is a note column and not exported; it holds values, so each such column gets "
     "one warning (GT0217). A column a comment row labels (UnityGameFramework's 策划备注) is a note column on purpose.",
     tables={"Items.csv": "#,Id,Name,\nId,Name,,\n1,sword,,forgot a header\n2,shield,,\n"},
     schemas={"Items": schema({"Id": INT, "Name": STR}, ["Id"], "Id")},
     toml_extra="\n[tables.Items]\nheader_row = 2\n")

# --- 9. encodings ------------------------------------------------------------------------------------------

case("bom-beats-encoding", "a byte-order mark says what a file is, whatever encoding is declared",
     "A UTF-8 file with a BOM under `encoding = \"gbk\"` reads as UTF-8 (a UTF-16 BOM already won): 扎克镇, not mojibake.",
     toml_extra='\n[tables.Town]\nencoding = "gbk"\n',
     binary={"Town.csv": b"\xef\xbb\xbf" + "Id,Name\n1,扎克镇\n".encode("utf-8")},
     schemas={"Town": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})
case("gbk-undeclared", "bytes that are not text in the file's encoding are a located error that shows the bytes",
     "A GBK file read as UTF-8: each bad cell is GT0102 showing its bytes (`\\xD4\\xFA…`, never `����`) and saying "
     "what they read as in GBK, with the fix (`encoding = \"gbk\"`).",
     binary={"Town.csv": "Id,Name\n1,扎克镇\n2,plain\n".encode("gbk")},
     schemas={"Town": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})

# --- 10. same-named sheets ---------------------------------------------------------------------------------

two_books = {
    "Weapons.xlsx": book(["Sheet1"], [sheet([row(1, [s("A1", "Id"), s("B1", "Name")]), row(2, [n("A2", 1), s("B2", "sword")])])]),
    "Armor.xlsx": book(["Sheet1"], [sheet([row(1, [s("A1", "Id"), s("B1", "Name")]), row(2, [n("A2", 2), s("B2", "helmet")])])]),
}
case("same-sheet-name", "two sheets of one name in different workbooks are an error unless selected",
     "`Weapons.xlsx` and `Armor.xlsx` both have `Sheet1`: an error naming both (GT0104), never one merged table.",
     tables=two_books, schemas={"Sheet1": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})
case("same-sheet-name-selected", "two sheets of one name in different workbooks are an error unless selected",
     "The same workbooks with `[tables.Gear] files = [\"*.xlsx\"]`: one table on purpose.",
     toml_extra='\n[tables.Gear]\nfiles = ["*.xlsx"]\n',
     tables=two_books, schemas={"Gear": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})

# --- 11. vertical sheets -----------------------------------------------------------------------------------

kv_schema = schema({"GameId": INT, "Title": STR, "Speed": NUM}, ["GameId"], None, **{"x-gentable-mode": "one"})
kv = "##column,GameId,int,1001\n##column,Title,string,Hello\n##column,Speed,string,1.5\n"
case("vertical-type-column", "a vertical sheet reads its values from value_column; type_column is never a value",
     "Luban's `##column` config sheet (marker | name | type | value) with `first_column = \"B\"`, `type_column = \"C\"` "
     "and `value_column = \"D\"`: GameId is 1001, not \"int\"; a type that contradicts the schema (Speed declared "
     "string, a number in the schema) is a warning.",
     toml_extra='\n[tables.Config]\nlayout = "vertical"\nfirst_column = "B"\nmarker_column = "B"\ntype_column = "C"\nvalue_column = "D"\n',
     tables={"Config.csv": kv}, schemas={"Config": kv_schema})
case("vertical-type-column-unset", "a vertical sheet reads its values from value_column; type_column is never a value",
     "The same sheet without `type_column`/`value_column`: the column right of the names holds type names, so it "
     "is an error (GT0220) saying which overrides to set, never `GameId = \"int\"`.",
     toml_extra='\n[tables.Config]\nlayout = "vertical"\nfirst_column = "B"\nmarker_column = "B"\n',
     tables={"Config.csv": kv}, schemas={"Config": schema({"GameId": STR, "Title": STR, "Speed": STR}, [], None, **{"x-gentable-mode": "one"})})

# --- 12. foreign keys --------------------------------------------------------------------------------------

case("foreign-keys-in-maps", "foreign keys are checked wherever the schema puts them, map keys and values included",
     "`Drops` maps item ids (keys, `x-gentable-mapKey`) to counts; `Swaps` maps names to item ids (values, "
     "`additionalProperties`); `Effect` is a polymorphic record whose `Give` kind names an item: each missing key "
     "is GT0304 at its cell.",
     tables={"Item.csv": "Id\nsword\nshield\n",
             "Chest.csv": "Id,Drops,Swaps,Effect\n1,sword=1|shield=2,a=sword,Give(shield)\n2,sword=1|boots=3,b=helmet,Give(ring)\n"},
     schemas={"Item": schema({"Id": STR}, ["Id"], "Id"),
              "Chest": schema({
                  "Id": INT,
                  "Drops": {"type": "object", "x-gentable-mapKey": {"type": "string", "x-gentable-foreignKey": "Item"}, "additionalProperties": INT},
                  "Swaps": {"type": "object", "additionalProperties": {"type": "string", "x-gentable-foreignKey": "Item"}},
                  "Effect": {"x-gentable-discriminator": "kind", "oneOf": [
                      {"type": "object", "properties": {"kind": {"const": "Give"}, "item": {"type": "string", "x-gentable-foreignKey": "Item"}}, "required": ["kind", "item"]},
                      {"type": "object", "properties": {"kind": {"const": "Nothing"}}, "required": ["kind"]}]},
              }, ["Id"], "Id")})

# --- 13. booleans ------------------------------------------------------------------------------------------

case("booleans", "booleans are true/false or 1/0; everything else is reported",
     "`true`, `FALSE` and `1`/`0` (and Excel's boolean cells) are booleans; `yes`, `no`, `Y`, `是`, `否` are each "
     "an error whose hint says what to write, never a guess.",
     tables={"Flags.csv": "Id,On\n1,true\n2,FALSE\n3,1\n4,0\n5,yes\n6,no\n7,Y\n8,是\n9,否\n"},
     schemas={"Flags": schema({"Id": INT, "On": {"type": "boolean"}}, ["Id", "On"], "Id")})

# --- 14. all diagnostics at once ---------------------------------------------------------------------------

case("all-diagnostics-at-once", "every diagnostic of a build is reported at once",
     "A cell that does not type (`abc` in an integer field), a duplicate id and a missing foreign key, in one run: "
     "the key and reference errors are not held back until the typing error is fixed. The failed cell itself is "
     "left out of later checks (its row is neither a duplicate nor a missing reference).",
     tables={"Item.csv": "Id,Name,Power\n1,sword,abc\n2,shield,3\n2,helmet,4\nx,ring,5\n",
             "Shop.csv": "Id,Sells\n1,1\n2,7\n3,x\n"},
     schemas={"Item": schema({"Id": INT, "Name": STR, "Power": INT}, ["Id"], "Id"),
              "Shop": schema({"Id": INT, "Sells": {"type": "integer", "x-gentable-foreignKey": "Item"}}, ["Id", "Sells"], "Id")})
case("identifier-clashes", "every identifier clash is reported at once",
     "Enum members `fire`/`Fire` and `ice-1`/`ice_1` both clash in every language, and the fields `max steps`/"
     "`MaxSteps` of a record: all of them in one run, not one per rebuild.",
     tables={"Spell.csv": "Id,Element,Limit\n1,fire,(1)\n"},
     schemas={"Spell": schema({"Id": INT, "Element": {"type": "string", "enum": ["fire", "Fire", "ice-1", "ice_1"]},
                               "Limit": {"type": "object", "properties": {"max steps": INT, "MaxSteps": INT}}}, ["Id", "Element"], "Id")})
case("csharp-namespace-keyword", "a C# keyword in the configured namespace is escaped, not refused",
     "`[csharp] namespace = \"Game.int.Items\"` is written `namespace Game.@int.Items` (C# 7.2 accepts `@` in "
     "namespace names); the generated code compiles and loads the data (tests/conformance.rs).",
     toml_extra='\n[csharp]\nnamespace = "Game.int.Items"\n',
     tables={"Item.csv": "Id,Name\n1,sword\n"}, schemas={"Item": schema({"Id": INT, "Name": STR}, ["Id"], "Id")})
case("unsupported-format", "a schema format gentable does not implement is an error",
     "`\"format\": \"float\"` (a 32-bit float) and the typo `\"format\": \"date_time\"` are schema errors (GT0415), "
     "never a 64-bit number or a plain string that silently ignores them.",
     tables={"Stat.csv": "Id,Speed,Since\n1,1.5,2024-05-01\n"},
     schemas={"Stat": schema({"Id": INT, "Speed": {"type": "number", "format": "float"},
                              "Since": {"type": "string", "format": "date_time"}}, ["Id"], "Id")})

with open(os.path.join(ROOT, "twins.txt"), "w") as f:
    f.write("# Pairs of cases holding the same table written differently: their data and content hashes are byte-equal\n"
            "# (tests/fidelity.rs twins_give_byte_equal_outputs).\n"
            "line-endings-lf line-endings-crlf\n"
            "excel-dates-1900 excel-dates-1904\n")
print(f"{len(CASES)} cases")
