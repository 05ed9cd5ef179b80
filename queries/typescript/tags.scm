; TypeScript references: names, properties and types.
(identifier) @reference
(property_identifier) @reference
(shorthand_property_identifier) @reference
(type_identifier) @reference
