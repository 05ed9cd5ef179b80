; TOML: top-level keys, tables and arrays of tables.

(document (pair [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key)
(table [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key
(table_array_element [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key
