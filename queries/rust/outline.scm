; Rust: functions (methods inside impls and traits), structs, enums, unions, traits, impls (named by
; their type), type aliases, consts (not `const _`, whose block only scopes what it holds), statics,
; modules, struct fields and `macro_rules!` macros.

(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.struct
(union_item name: (type_identifier) @name body: (_) @body) @definition.struct
(enum_item name: (type_identifier) @name body: (_) @body) @definition.enum
(trait_item name: (type_identifier) @name body: (_) @body) @definition.trait
(impl_item type: (_) @name body: (_)? @body) @definition.impl
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
((const_item name: (identifier) @name) (#not-eq? @name "_")) @definition.const
(macro_definition name: (identifier) @name) @definition.macro
(static_item name: (identifier) @name) @definition.var
(mod_item name: (identifier) @name body: (_)? @body) @definition.module
(field_declaration name: (field_identifier) @name) @definition.field
