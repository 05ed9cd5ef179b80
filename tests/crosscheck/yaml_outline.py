"""The reference outline of YAML files, from PyYAML's composer (its node graph, before any value is
resolved: `on:` stays the key `on`).

Prints one JSON list per item: [path, "key", name, line], each document's top-level mapping keys.
"""
import json
import sys

import yaml


def main():
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for document in yaml.compose_all(f):
                if isinstance(document, yaml.MappingNode):
                    for key, _ in document.value:
                        print(json.dumps([path, "key", key.value, key.start_mark.line + 1]))


if __name__ == "__main__":
    main()
