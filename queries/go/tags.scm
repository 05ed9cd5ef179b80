; Go references: every name used outside its own declaration.
(call_expression function: (identifier) @reference)
(call_expression function: (selector_expression field: (field_identifier) @reference))
(selector_expression field: (field_identifier) @reference)
(type_identifier) @reference
(qualified_type name: (type_identifier) @reference)
(composite_literal type: (type_identifier) @reference)
(identifier) @reference
