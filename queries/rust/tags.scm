; Rust references: called functions and methods, types, paths, fields, macros.
(call_expression function: (identifier) @reference)
(call_expression function: (scoped_identifier name: (identifier) @reference))
(call_expression function: (field_expression field: (field_identifier) @reference))
(macro_invocation macro: (identifier) @reference)
(type_identifier) @reference
(scoped_identifier name: (identifier) @reference)
(field_expression field: (field_identifier) @reference)
(identifier) @reference
