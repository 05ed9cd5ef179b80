; Kotlin references: names.
(identifier) @reference
