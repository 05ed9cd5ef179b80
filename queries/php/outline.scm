; PHP: namespaces, classes, interfaces, traits, enums and their cases, functions, methods,
; properties, constants.

(namespace_definition name: (_) @name) @definition.module
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name body: (_) @body) @definition.method
(method_declaration name: (name) @name) @definition.method
(property_declaration (property_element name: (variable_name) @name)) @definition.field
(const_declaration (const_element (name) @name)) @definition.const
(enum_case name: (name) @name) @definition.const
