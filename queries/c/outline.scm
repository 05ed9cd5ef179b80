; C: functions (definitions and prototypes), structs, unions, enums and their enumerators, typedefs,
; fields, file-scope variables and macros. A function returning pointers (`char **f(void)`) has its
; declarator under one or two pointer declarators.

; A macro after a declaration the parser closed (`void f() MACRO(mu) {}` read as a declaration and
; a definition named MACRO, or `void f() MACRO(mu);` as two declarations): the part without a type
; named in capitals is no item; the declaration before it is the function.
((function_definition
  !type
  declarator: (function_declarator declarator: (identifier) @name)
  body: (_) @body)
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#set! exclusive) (#set! skip)) @definition.function
((declaration
  !type
  declarator: (function_declarator declarator: (identifier) @name))
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#set! exclusive) (#set! skip)) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]
  body: (_)? @body) @definition.function
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(enumerator name: (identifier) @name) @definition.const
(type_definition declarator: (type_identifier) @name) @definition.type
; A macro the parser took for the type (`TS_PACKED uint8_t symbol;`): the field's name is the
; identifier it could not place.
((field_declaration declarator: (field_identifier) (ERROR . (identifier) @name .))
  (#set! exclusive)) @definition.field
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(translation_unit
  (declaration declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
  ])) @definition.var)
(translation_unit (declaration declarator: (identifier) @name) @definition.var)
(preproc_def name: (identifier) @name) @definition.const
(preproc_function_def name: (identifier) @name) @definition.function
