; Bash: functions and top-level variables (plain, exported, readonly, declared).

(function_definition name: (word) @name body: (_) @body) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.var)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.var)
