; JSON: the top-level object's keys.

(document (object (pair key: (string (string_content) @name)) @definition.key))
