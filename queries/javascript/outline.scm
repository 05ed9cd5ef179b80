; JavaScript: functions (also arrow functions and function expressions bound to a name), classes,
; methods, fields, top-level const/let/var, and `export default` of an anonymous value.

(function_declaration name: (_) @name body: (_) @body) @definition.function
(generator_function_declaration name: (_) @name body: (_) @body) @definition.function
(class_declaration name: (_) @name body: (_) @body) @definition.class
(method_definition name: (_) @name body: (_) @body) @definition.method
(field_definition property: (_) @name) @definition.field

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration "let" (variable_declarator name: (identifier) @name)) @definition.var
(lexical_declaration (variable_declarator name: (identifier) @name)) @definition.const
(variable_declaration (variable_declarator name: (identifier) @name)) @definition.var

(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (class) (generator_function)]) @definition.function
