; The item notion JavaScript, TypeScript and TSX share (each starts from this with `; inherits:`):
; functions (also arrow functions and function expressions bound to a name), classes, methods,
; top-level const/let/var, functions bound to a property at the top level, and `export default`
; of an anonymous value. Any other function expression (a callback: `it('x', async () => {…})`)
; holds locals, as a function does.

(function_declaration name: (_) @name body: (_) @body) @definition.function
(generator_function_declaration name: (_) @name body: (_) @body) @definition.function
(class_declaration name: (_) @name body: (_) @body) @definition.class
(method_definition name: (_) @name body: (_) @body) @definition.method

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

; A function bound to a property at the top level (`app.init = function init() {…}`) is one too.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier) @name)
      right: [(function_expression) (arrow_function)])) @definition.function)

; Any other function expression holds locals, as a function does.
((function_expression) @name (#set! scope)) @definition.function
((arrow_function) @name (#set! scope)) @definition.function

(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (class) (generator_function)]) @definition.function
