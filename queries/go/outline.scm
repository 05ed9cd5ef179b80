; Go: functions, methods (nested under their receiver type), types, constants, variables, struct
; fields and interface methods. Locals inside function bodies are dropped by the outline builder.

; A function literal (`var logger = func() {…}()`) holds locals, as a function does.
((func_literal) @name (#set! scope)) @definition.function

(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

; `a, b = 1, 2`: a field-name query sees only the first name, so match the children.
(const_spec (identifier) @name) @definition.const

(var_spec (identifier) @name) @definition.var

(field_declaration (field_identifier) @name) @definition.field

(method_elem name: (field_identifier) @name) @definition.method
