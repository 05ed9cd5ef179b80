; inherits: c
; C++ adds classes, namespaces, methods defined in their class or out of line (`A::b`, nested under
; class A when it is in the same file), method declarations, operators and `using` aliases. A
; declarator may sit under pointer or reference declarators (`int* A::b()`, `A** make();`). A
; trailing annotation macro (`void f() GTEST_LOCK_EXCLUDED_(mu) {}`) makes the parser read the
; macro as the declarator and the real one as an error: the recovery patterns name the real one.

(class_specifier name: (_) @name body: (_) @body) @definition.class
; An export macro between `class` and the name (`class GTEST_API_ UnitTestImpl {…}`) makes the parser
; read a function named like the class, of return type `class GTEST_API_`: it is the class.
((function_definition
  type: (class_specifier name: (type_identifier) @_macro !body)
  declarator: (identifier) @name
  body: (_) @body)
  (#match? @_macro "^[A-Z][A-Z0-9_]*$")
  (#set! exclusive)) @definition.class
(namespace_definition name: (_) @name body: (_) @body) @definition.module
; Variables of a namespace.
(declaration_list
  (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: [(identifier) (pointer_declarator declarator: (identifier))] @name)
  ]) @definition.var)
; The members of a class read as a function (the export macro above): its fields are declarations.
((function_definition
  type: (class_specifier name: (type_identifier) @_macro !body)
  body: (compound_statement [
    (declaration declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)]) @definition.field
    (labeled_statement (declaration declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)]) @definition.field)
  ]))
  (#match? @_macro "^[A-Z][A-Z0-9_]*$"))
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
  body: (_)? @body) @definition.method
(function_definition
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  ]
  body: (_)? @body) @definition.method
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
