//! Validation of typed tables: JSON Schema per row, keys, foreign keys, rule expressions.
