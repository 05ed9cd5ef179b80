; C# references: names.
(identifier) @reference
