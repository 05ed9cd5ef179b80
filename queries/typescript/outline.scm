; inherits: ecmascript
; TypeScript: the item notion JavaScript shares (queries/ecmascript/outline.scm), with
; `public_field_definition` for fields, plus overload signatures, interfaces, type aliases, enums,
; abstract classes and namespaces.

(function_signature name: (_) @name) @definition.function
(abstract_class_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(internal_module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name body: (_) @body) @definition.module
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition name: (_) @name) @definition.field
(property_signature name: (_) @name) @definition.field
