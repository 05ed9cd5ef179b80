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
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition name: (_) @name) @definition.field

; The members of an interface, of the object type a type alias names and of a member's own object
; type, and a class's overload signatures; not those of an object type elsewhere in a type (a
; union's, a parameter's: `type F = (options?: { env?: E }) => string` has no field).
(interface_body (property_signature name: (_) @name) @definition.field)
(interface_body (method_signature name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(type_alias_declaration
  value: (object_type (property_signature name: (_) @name) @definition.field))
(type_alias_declaration
  value: (object_type (method_signature name: (_) @name) @definition.method))
(property_signature
  type: (type_annotation (object_type (property_signature name: (_) @name) @definition.field)))
(property_signature
  type: (type_annotation (object_type (method_signature name: (_) @name) @definition.method)))
