<?php
// The reference outline of PHP files, from PHP's own parser (the `ast` extension, Debian's php-ast).
//
// Run: php php_outline.php FILE...  Prints one JSON list per definition: [path, kind, name, line],
// under coderd's notion of an item: namespaces, classes, interfaces, traits, enums and their cases,
// functions, methods, properties and constants, anywhere but inside a function's or a method's body
// (or a closure's). Placed on the line PHP gives the declaration.

// What holds code, and `declare(strict_types=1)`, whose directive is no constant.
const BODIES = [ast\AST_FUNC_DECL, ast\AST_METHOD, ast\AST_CLOSURE, ast\AST_ARROW_FUNC, ast\AST_DECLARE];
const NAMED = [
    ast\AST_NAMESPACE => 'module',
    ast\AST_CLASS => 'class',
    ast\AST_FUNC_DECL => 'function',
    ast\AST_METHOD => 'method',
    ast\AST_PROP_ELEM => 'field',
    ast\AST_CONST_ELEM => 'const',
    ast\AST_ENUM_CASE => 'const',
];

function walk($node, string $path): void
{
    if (!($node instanceof ast\Node)) {
        return;
    }
    $name = $node->children['name'] ?? null;
    if (isset(NAMED[$node->kind]) && is_string($name)) {
        echo json_encode([$path, NAMED[$node->kind], $name, $node->lineno]), "\n";
    }
    if (in_array($node->kind, BODIES, true)) {
        return;
    }
    foreach ($node->children as $child) {
        walk($child, $path);
    }
}

foreach (array_slice($argv, 1) as $path) {
    walk(ast\parse_file($path, 90), $path);
}
