; inherits: c
; C++ adds classes, namespaces, methods defined in their class or out of line (`A::b`, nested under
; class A when it is in the same file), method declarations, operators and `using` aliases. A
; declarator may sit under pointer or reference declarators (`int* A::b()`, `A** make();`). A
; trailing annotation macro (`void f() GTEST_LOCK_EXCLUDED_(mu) {}`) makes the parser read the
; macro as the declarator and the real one as an error: the recovery patterns name the real one.

(class_specifier name: (_) @name body: (_) @body) @definition.class
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type

((function_definition
  (ERROR (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ]))
  body: (_) @body) (#set! exclusive)) @definition.method
((function_definition
  (ERROR (function_declarator declarator: (identifier) @name))
  body: (_) @body) (#set! exclusive)) @definition.function
((field_declaration
  (ERROR (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))) (#set! exclusive)) @definition.method
; A qualified declaration is a method defined out of line whose body the parser cut off after a
; trailing macro (see C's recovery patterns).
(declaration declarator: [
    (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ])
    (pointer_declarator declarator: (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ])))
    (reference_declarator (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ]))
  ]) @definition.method

(function_definition
  declarator: [
    (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ])
    (pointer_declarator declarator: (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ])))
    (reference_declarator (function_declarator declarator: [
      (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: [(identifier) (operator_name) (destructor_name) (field_identifier)] @name)
      (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)] name: (_) @name))
    ]))
  ]
  body: (_) @body) @definition.method
(function_definition
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  ]
  body: (_) @body) @definition.method
(function_definition
  declarator: (reference_declarator (function_declarator declarator: (identifier) @name))
  body: (_) @body) @definition.function
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  ]) @definition.method
(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.method
