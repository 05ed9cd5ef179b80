; Python: functions (methods inside classes), classes, module variables (fields inside classes).
; Patterns with a docstring come first: for one item the first matching pattern wins.

(function_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.function

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @definition.class

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(expression_statement
  (assignment left: (identifier) @name)) @definition.var

(expression_statement
  (assignment right: (assignment left: (identifier) @name))) @definition.var
