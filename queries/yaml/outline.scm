; YAML: each document's top-level keys.

(stream
  (document
    (block_node
      (block_mapping (block_mapping_pair key: (_) @name) @definition.key))))
