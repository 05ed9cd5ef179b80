; Rust references: every name, type and field used.
[(identifier) (type_identifier) (field_identifier)] @reference

; Names a macro call defines, outside functions (definitions for the map and `symbols`; not
; `outline` items, which are what the language itself declares).
;
; In a call with braces, `m! { … }`, each identifier that opens an entry of its comma-separated list
; (right after the brace or a `,`) and ends it or its name (right before a `,`, a `=` or the closing
; brace): `define_symbols! { foo, bar = "bar", }` defines foo and bar. Entries separated by `;`
; are rows of a table (`Sized, sym::sized, TraitId;`), whose names are mostly uses: none.
((macro_invocation (token_tree (identifier) @name @definition.const) @_list)
  (#match? @_list "^\\{")
  (#prev-is? @name "{" ",")
  (#next-is? @name "," "=" "}"))

; In any call, the name after a declaring keyword, in the call's tokens or one level of brackets
; inside them: `bitflags! { pub struct Flags: u32 { const A = 1; } }` defines Flags and A,
; `lazy_static! { static ref FOO: T = …; }` FOO, `thread_local!(static TL: … = …)` TL.
(macro_invocation (token_tree "struct" . (identifier) @name @definition.struct))
(macro_invocation (token_tree "union" . (identifier) @name @definition.struct))
(macro_invocation (token_tree "enum" . (identifier) @name @definition.enum))
(macro_invocation (token_tree "trait" . (identifier) @name @definition.trait))
(macro_invocation (token_tree "type" . (identifier) @name @definition.type))
(macro_invocation (token_tree "fn" . (identifier) @name @definition.function))
(macro_invocation (token_tree "mod" . (identifier) @name @definition.module))
(macro_invocation (token_tree "const" . (identifier) @name @definition.const))
((macro_invocation (token_tree "static" . (identifier) @name @definition.var)) (#not-eq? @name "ref"))
((macro_invocation (token_tree "static" . (identifier) @_ref . (identifier) @name @definition.var)) (#eq? @_ref "ref"))
(macro_invocation (token_tree (token_tree "struct" . (identifier) @name @definition.struct)))
(macro_invocation (token_tree (token_tree "enum" . (identifier) @name @definition.enum)))
(macro_invocation (token_tree (token_tree "type" . (identifier) @name @definition.type)))
(macro_invocation (token_tree (token_tree "fn" . (identifier) @name @definition.function)))
(macro_invocation (token_tree (token_tree "const" . (identifier) @name @definition.const)))
((macro_invocation (token_tree (token_tree "static" . (identifier) @name @definition.var))) (#not-eq? @name "ref"))
((macro_invocation (token_tree (token_tree "static" . (identifier) @_ref . (identifier) @name @definition.var))) (#eq? @_ref "ref"))
