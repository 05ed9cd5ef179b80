; Rust references: every name, type and field used.
[(identifier) (type_identifier) (field_identifier)] @reference
