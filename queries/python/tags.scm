; Python references: every name used (definitions' own names are skipped by the tagger).
(identifier) @reference
