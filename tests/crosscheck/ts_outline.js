// Prints the definitions of TypeScript/JavaScript files as JSON lines [path, kind, name, line], as
// the TypeScript compiler's own parser sees them, under coderd's notion of an item: nothing inside
// function bodies; class and interface members; the members of object types a type alias names;
// top-level (and namespace-level) variables, functions bound to a property at the top level. Run by tests/it/corpus.rs with `typescript` from
// $CODERD_SERVERS_DIR/npm (scripts/install-language-servers.sh) or NODE_PATH.
"use strict";
const fs = require("fs");
const path = require("path");

function loadTypescript() {
  const dirs = [];
  if (process.env.CODERD_SERVERS_DIR) dirs.push(path.join(process.env.CODERD_SERVERS_DIR, "npm/node_modules"));
  const data = process.env.XDG_DATA_HOME || path.join(process.env.HOME || "", ".local/share");
  dirs.push(path.join(data, "coderd/servers/npm/node_modules"));
  for (const dir of dirs) {
    try { return require(path.join(dir, "typescript")); } catch (_) { /* next */ }
  }
  return require("typescript");
}

const ts = loadTypescript();

// `app.init = function init() {…}` / `exports.f = () => …`: a function bound to a property.
function boundFunction(e) {
  return ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    ts.isPropertyAccessExpression(e.left) &&
    (ts.isFunctionExpression(e.right) || ts.isArrowFunction(e.right));
}

function rows(file) {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const push = (kind, name) => {
    const line = source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1;
    out.push([file, kind, name.getText(source), line]);
  };
  const members = (list) => {
    for (const m of list) {
      if (!m.name) continue;
      if (ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)) {
        push("field", m.name);
        if (m.type && ts.isTypeLiteralNode(m.type)) members(m.type.members);
      } else if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) {
        push("method", m.name);
      }
    }
  };
  const statements = (list) => {
    for (const s of list) {
      if (ts.isFunctionDeclaration(s) && s.name) push("function", s.name);
      else if (ts.isClassDeclaration(s) && s.name) {
        push("class", s.name);
        for (const m of s.members) {
          if (ts.isConstructorDeclaration(m)) {
            const keyword = m.getChildren(source).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
            if (keyword) push("method", keyword);
          }
        }
        members(s.members);
      } else if (ts.isInterfaceDeclaration(s)) {
        push("interface", s.name);
        members(s.members);
      } else if (ts.isTypeAliasDeclaration(s)) {
        push("type", s.name);
        if (ts.isTypeLiteralNode(s.type)) members(s.type.members);
      } else if (ts.isEnumDeclaration(s)) push("enum", s.name);
      else if (ts.isModuleDeclaration(s)) {
        push("module", s.name);
        if (s.body && ts.isModuleBlock(s.body)) statements(s.body.statements);
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) push("var", d.name);
        }
      } else if (ts.isExpressionStatement(s) && boundFunction(s.expression)) {
        push("function", s.expression.left.name);
      }
    }
  };
  statements(source.statements);
  return out;
}

for (const file of process.argv.slice(2)) {
  for (const row of rows(file)) console.log(JSON.stringify(row));
}
