; C: functions (definitions and prototypes), structs, unions, enums, typedefs, fields, file-scope
; variables and macros.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))
  body: (_) @body) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (_) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(translation_unit
  (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.var)
(translation_unit (declaration declarator: (identifier) @name) @definition.var)
(preproc_def name: (identifier) @name) @definition.const
(preproc_function_def name: (identifier) @name) @definition.function
