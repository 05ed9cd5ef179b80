; Go references: every name used (definitions' own names are skipped by the tagger).
[(identifier) (type_identifier) (field_identifier)] @reference
