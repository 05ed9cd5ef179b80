; JavaScript references: names, properties and shorthand properties.
(identifier) @reference
(property_identifier) @reference
(shorthand_property_identifier) @reference
