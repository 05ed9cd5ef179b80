; Kotlin: classes, interfaces, enum classes, objects, companion objects (named `Companion` unless
; named, as Kotlin names them), functions, properties (also a primary constructor's `val`/`var`
; parameters) and type aliases.

(class_declaration "interface" name: (identifier) @name (class_body) @body) @definition.interface
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body) @body) @definition.enum
(class_declaration name: (identifier) @name (class_body) @body) @definition.class
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name (class_body) @body) @definition.class
(object_declaration name: (identifier) @name) @definition.class
((companion_object name: (identifier) @name (class_body) @body) (#set! exclusive)) @definition.class
((companion_object "companion" @name (class_body) @body) (#set! name "Companion")) @definition.class
(function_declaration name: (identifier) @name (function_body) @body) @definition.function
(function_declaration name: (identifier) @name) @definition.function
; Properties of a file, class or object (a getter's locals are no items).
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.var)
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.var)
(class_parameter ["val" "var"] . (identifier) @name) @definition.var
(enum_class_body (property_declaration (variable_declaration (identifier) @name)) @definition.var)
(type_alias type: (identifier) @name) @definition.type
; A lambda is code, as a function's body is: what it declares is local.
((lambda_literal) @name (#set! scope)) @definition.function
((anonymous_function) @name (#set! scope)) @definition.function
