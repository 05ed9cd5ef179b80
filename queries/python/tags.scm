; Python references: called names, attributes, and names used as values or bases.
(call function: (identifier) @reference)
(call function: (attribute attribute: (identifier) @reference))
(attribute attribute: (identifier) @reference)
(identifier) @reference
