; Ruby references: every name and constant used.
[(identifier) (constant)] @reference
