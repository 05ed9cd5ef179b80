; inherits: c
(namespace_identifier) @reference
