; inherits: c
; C++ adds classes, namespaces, methods defined in their class or out of line (`A::b`, nested under
; class A when it is in the same file), method declarations, operators and `using` aliases.

(class_specifier name: (_) @name body: (_) @body) @definition.class
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
      name: (_) @name))
  body: (_) @body) @definition.method
(function_definition
  declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  body: (_) @body) @definition.method
(function_definition
  declarator: (reference_declarator (function_declarator declarator: (_) @name))
  body: (_) @body) @definition.function
(field_declaration
  declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name)) @definition.method
(declaration
  declarator: (function_declarator declarator: [(identifier) (destructor_name)] @name)) @definition.method
