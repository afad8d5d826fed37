//! Primary keys (map tables are sorted by them; a duplicate names both rows' cells), secondary unique keys
//! (`x-gentable-unique`) and singletons (`x-gentable-mode: "one"` has exactly one row).

use super::values::atom_text;
use crate::diag::{column_letters, Code, Diagnostic};
use crate::ir::{Field, Project, Row, Table, TableMode, Type, Value};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

fn key_text(project: &Project, fields: &[Field], key: &[usize], row: &Row) -> String {
    key.iter()
        .map(|&i| value_text(project, &fields[i].ty, &row.values[i]))
        .collect::<Vec<_>>()
        .join(if key.len() > 1 { ", " } else { "" })
}

/// A key value as the designer writes it in its cell: `0.1`, `2024-05-01`, `(x=0,y=1)` (the cell grammar,
/// [`crate::typing::cell::print`]), never the IR's debug form (`Float(0.1)`).
fn value_text(project: &Project, ty: &Type, v: &Value) -> String {
    atom_text(v).unwrap_or_else(|| crate::typing::cell::print::cell_text(project, ty, v, '|'))
}

/// `(A, B)`: the field names of a composite key.
fn key_names(t: &Table, key: &[usize]) -> String {
    format!(
        "({})",
        key.iter()
            .map(|&i| t.fields[i].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `("Red", 3)`: the values of a composite key in one row.
fn key_values(project: &Project, fields: &[Field], key: &[usize], row: &Row) -> String {
    let v: Vec<String> = key
        .iter()
        .map(|&i| match &row.values[i] {
            Value::Str(s) | Value::Enum(s) => format!("{s:?}"),
            Value::Null => "(empty)".into(),
            v => value_text(project, &fields[i].ty, v),
        })
        .collect();
    format!("({})", v.join(", "))
}

/// `file:2:A and file:2:C`: every cell of a composite key in `row`.
fn where_cells(row: &Row, key: &[usize]) -> String {
    crate::diag::list::and(key.iter().map(|&i| where_(row, row.column(i))))
}

fn where_(row: &Row, col: Option<usize>) -> String {
    let mut s = row.origin.file.to_string();
    if let Some(sh) = &row.origin.sheet {
        s.push_str(&format!("[{sh}]"));
    }
    s.push_str(&format!(":{}", row.origin.row));
    if let Some(c) = col {
        s.push_str(&format!(":{}", column_letters(c)));
    }
    s
}

/// Sort map tables by primary key and report duplicates of primary and unique keys; check singletons.
/// A row whose key cell failed to type has no key: it is left out of the duplicate checks ([`super::gaps::Gaps`]),
/// and a table not all of whose sources were typed is not counted as a singleton.
pub fn check(project: &mut Project, gaps: &super::gaps::Gaps, diags: &mut Vec<Diagnostic>) {
    // Key comparison and key text read only the type declarations: do not copy every row.
    let snapshot = Project {
        name: project.name.clone(),
        tables: vec![],
        enums: project.enums.clone(),
        records: project.records.clone(),
        unions: project.unions.clone(),
        separators: project.separators.clone(),
        kind_aliases: project.kind_aliases.clone(),
        choices: project.choices.clone(),
    };
    for t in &mut project.tables {
        match t.mode {
            TableMode::One => {
                if t.rows.len() != 1 && !gaps.tables.contains(&t.name) {
                    let mut d = Diagnostic::file_error(
                        Code::SingletonRows,
                        t.rows.get(1).map(|r| r.origin.file.to_string()).unwrap_or_else(|| t.schema_file.clone()),
                        format!("{} is a singleton table (x-gentable-mode \"one\") and must have exactly one data row, found {}", t.name, t.rows.len()),
                    );
                    if let Some(r) = t.rows.get(1) {
                        d.sheet = r.origin.sheet.as_deref().map(str::to_string);
                        d.row = r.origin.row;
                    }
                    diags.push(d);
                }
            }
            TableMode::Map => {
                let pk = t.primary_key.clone();
                let tys: Vec<Type> = pk.iter().map(|&i| t.fields[i].ty.clone()).collect();
                let cmp = |a: &Row, b: &Row| {
                    pk.iter()
                        .zip(&tys)
                        .map(|(&i, ty)| {
                            crate::ir::cmp_key(&snapshot, ty, &a.values[i], &b.values[i])
                        })
                        .find(|o| o.is_ne())
                        .unwrap_or(Ordering::Equal)
                };
                // Stable sort: the first occurrence in source order stays first. `order = "source"` tables
                // are sorted too (to find duplicates) and put back in source order afterwards.
                // The rows are sorted as a permutation of their positions, then put in place by swaps
                // ([`gather`]): a big table's rows are never held twice (issue 18: peak memory).
                let mut order: Vec<usize> = (0..t.rows.len()).collect();
                order.sort_by(|&a, &b| cmp(&t.rows[a], &t.rows[b]));
                let mut dup_idx = BTreeSet::new();
                let keyless = |r: &Row| pk.iter().any(|&i| r.failed(i));
                for i in 1..order.len() {
                    let (first, second) = (&t.rows[order[i - 1]], &t.rows[order[i]]);
                    if keyless(first) || keyless(second) {
                        continue;
                    }
                    if cmp(first, second) == Ordering::Equal {
                        let col = pk.first().and_then(|&c| second.column(c));
                        let pcol = pk.first().and_then(|&c| first.column(c));
                        let key = key_text(&snapshot, &t.fields, &pk, second);
                        let message = if pk.len() == 1 {
                            format!(
                                "duplicate primary key {key:?} in {}: also at {}",
                                t.name,
                                where_(first, pcol)
                            )
                        } else {
                            format!(
                                "duplicate primary key {} = {} in {}: also at {}",
                                key_names(t, &pk),
                                key_values(&snapshot, &t.fields, &pk, second),
                                t.name,
                                where_cells(first, &pk),
                            )
                        };
                        let d = Diagnostic::cell_error(
                            Code::DuplicateKey,
                            &second.origin,
                            col,
                            Some(&t.fields[pk[0]].name),
                            Some(&key),
                            message,
                        )
                        .with_help("primary keys must be unique; change or delete one of the rows");
                        diags.push(d);
                        dup_idx.insert(i);
                    }
                }
                // Keep the first of each duplicate group so that lookups stay well-defined.
                let mut kept: Vec<usize> = order
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !dup_idx.contains(i))
                    .map(|(_, pos)| pos)
                    .collect();
                if t.source_order {
                    kept.sort_unstable();
                }
                gather(&mut t.rows, &kept);
            }
            TableMode::List => {}
        }
        for uk in t.unique_keys.clone() {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (ri, row) in t.rows.iter().enumerate() {
                if uk.iter().all(|&i| row.values[i] == Value::Null)
                    || uk.iter().any(|&i| row.failed(i))
                {
                    continue;
                }
                let key = key_text(&snapshot, &t.fields, &uk, row);
                if let Some(&prev) = seen.get(&key) {
                    let first = &t.rows[prev];
                    let names: Vec<&str> = uk.iter().map(|&i| t.fields[i].name.as_str()).collect();
                    diags.push(
                        Diagnostic::cell_error(
                            Code::DuplicateUnique,
                            &row.origin,
                            row.column(uk[0]),
                            Some(&t.fields[uk[0]].name),
                            Some(&key),
                            if uk.len() == 1 {
                                format!(
                                    "duplicate value {key:?} of unique key ({}) in {}: also at {}",
                                    crate::diag::list::series(names),
                                    t.name,
                                    where_(first, first.column(uk[0]))
                                )
                            } else {
                                format!(
                                    "duplicate value {} of unique key {} in {}: also at {}",
                                    key_values(&snapshot, &t.fields, &uk, row),
                                    key_names(t, &uk),
                                    t.name,
                                    where_cells(first, &uk)
                                )
                            },
                        )
                        .with_help(
                            "values of a unique key (x-gentable-unique) may appear only once",
                        ),
                    );
                } else {
                    seen.insert(key, ri);
                }
            }
        }
    }
}

/// Rearranges `rows` in place so that row `j` is the former `rows[kept[j]]`, and drops the rows `kept` does not
/// name. `kept` holds distinct positions below `rows.len()`. Each swap puts one row where it belongs, so this is
/// at most `rows.len()` swaps, with one position per row as scratch (not a second vector of rows: 112 bytes
/// each, 112 MB for a 1,000,000-row table at the validation's peak).
fn gather<T>(rows: &mut Vec<T>, kept: &[usize]) {
    const DROPPED: usize = usize::MAX;
    let mut dest = vec![DROPPED; rows.len()];
    for (j, &pos) in kept.iter().enumerate() {
        dest[pos] = j;
    }
    for i in 0..rows.len() {
        // Move the row at i to its destination until i holds its own row or one that is dropped (a later
        // row whose destination is i swaps it out).
        while dest[i] != DROPPED && dest[i] != i {
            let d = dest[i];
            rows.swap(i, d);
            dest.swap(i, d);
        }
    }
    rows.truncate(kept.len());
}

#[cfg(test)]
mod tests {
    use super::gather;
    use crate::ir::{Field, Project, Row, Table, TableMode, Type, Value};

    /// A duplicate of a unique key of numbers and dates is named as the designer wrote it (`0.1`,
    /// `2024-05-01`), never in the IR's debug form (`Float(0.1)`, `Date(19844)`).
    #[test]
    fn duplicate_keys_are_named_as_their_cells_show_them() {
        let fields = vec![
            Field::new("Id", Type::Int(crate::ir::IntWidth::U32)),
            Field::new("Weight", Type::Float),
            Field::new("Day", Type::Date),
        ];
        let row = |id: i128, w: f64| {
            let mut r = Row::new(vec![Value::Int(id), Value::Float(w), Value::Date(19_844)]);
            r.origin.file = "Table/T.csv".into();
            r.origin.row = id as usize + 1;
            r
        };
        let mut t = Table::new("T", TableMode::Map, fields);
        t.primary_key = vec![0];
        t.unique_keys = vec![vec![1], vec![1, 2]];
        t.rows = vec![row(1, 0.1), row(2, 2.5), row(3, 0.1)];
        let mut p = Project {
            tables: vec![t],
            ..Default::default()
        };
        let mut diags = vec![];
        super::check(&mut p, &Default::default(), &mut diags);
        let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "duplicate value \"0.1\" of unique key (Weight) in T: also at Table/T.csv:2",
                "duplicate value (0.1, 2024-05-01) of unique key (Weight, Day) in T: also at Table/T.csv:2 and Table/T.csv:2",
            ],
            "{diags:?}"
        );
        assert_eq!(diags[0].cell_text.as_deref(), Some("0.1"));
    }

    /// `gather` on random permutations of up to 40 rows, keeping none, some or all of them, against
    /// building the result by copying.
    #[test]
    fn gather_puts_kept_rows_in_order_and_drops_the_rest() {
        let mut state = 7u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % n
        };
        for n in 0..40 {
            for _ in 0..50 {
                let mut positions: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    positions.swap(i, next(i + 1));
                }
                let k = next(n + 1);
                let kept = &positions[..k];
                let mut rows: Vec<String> = (0..n).map(|i| format!("row{i}")).collect();
                let want: Vec<String> = kept.iter().map(|&p| rows[p].clone()).collect();
                gather(&mut rows, kept);
                assert_eq!(rows, want, "n {n}, kept {kept:?}");
            }
        }
    }
}
