; inherits: ecmascript
; JavaScript: the shared item notion (queries/ecmascript/outline.scm), and its fields.

(field_definition property: (_) @name) @definition.field
