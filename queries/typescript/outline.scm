; TypeScript: JavaScript's forms (with `public_field_definition` for fields) plus overload
; signatures, interfaces, type aliases, enums, abstract classes and namespaces.

(function_declaration name: (_) @name body: (_) @body) @definition.function
(generator_function_declaration name: (_) @name body: (_) @body) @definition.function
(function_signature name: (_) @name) @definition.function
(class_declaration name: (_) @name body: (_) @body) @definition.class
(abstract_class_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(internal_module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name body: (_) @body) @definition.module
(method_definition name: (_) @name body: (_) @body) @definition.method
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition name: (_) @name) @definition.field
(property_signature name: (_) @name) @definition.field

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
