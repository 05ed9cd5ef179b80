; PHP references: names.
(name) @reference
