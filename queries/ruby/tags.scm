; Ruby references: method calls, names and constants.
(call method: (identifier) @reference)
(identifier) @reference
(constant) @reference
