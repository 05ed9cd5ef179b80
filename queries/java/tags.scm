; Java references: names and types.
(identifier) @reference
(type_identifier) @reference
