; Java: classes, records, interfaces, annotation types (`@interface`) and their elements, enums and
; their constants, methods, constructors, fields and interface constants.

(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(record_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.annotation
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(enum_constant name: (identifier) @name) @definition.const
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.const

; Initializer blocks (`static { … }`, `{ … }` in a class body) and lambdas are code, as a method's
; body is: an anonymous class's methods there are locals.
((static_initializer) @name (#set! scope)) @definition.function
((lambda_expression) @name (#set! scope)) @definition.function
(class_body ((block) @name @definition.function (#set! scope)))
