; Bash references: commands run by name (functions defined elsewhere).
(command_name (word) @reference)
