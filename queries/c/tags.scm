; C references: names, types and fields.
(identifier) @reference
(type_identifier) @reference
(field_identifier) @reference
