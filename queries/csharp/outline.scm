; C#: namespaces, classes, records, structs, interfaces, enums, delegates, methods, constructors,
; properties and fields.

(namespace_declaration name: (_) @name body: (_) @body) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(property_declaration name: (identifier) @name) @definition.field
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
; A lambda is code, as a method's body is: what it declares is local.
((lambda_expression) @name (#set! scope)) @definition.method
((anonymous_method_expression) @name (#set! scope)) @definition.method
