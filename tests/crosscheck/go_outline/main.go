// The reference outline of Go files, from the standard library's go/ast.
//
// Prints one JSON list per definition: [path, kind, name, line]. The rules match coderd's outline:
// everything declared outside function bodies (including struct fields and interface methods at
// any depth of a type), methods by their receiver.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

type emitter struct {
	fset *token.FileSet
	path string
}

func (e emitter) emit(kind, name string, pos token.Pos) {
	row, _ := json.Marshal([]interface{}{e.path, kind, name, e.fset.Position(pos).Line})
	fmt.Println(string(row))
}

func (e emitter) spec(s ast.Spec, tok token.Token) {
	switch s := s.(type) {
	case *ast.TypeSpec:
		kind := "type"
		if s.Assign == 0 {
			switch s.Type.(type) {
			case *ast.StructType:
				kind = "struct"
			case *ast.InterfaceType:
				kind = "interface"
			}
		}
		e.emit(kind, s.Name.Name, s.Name.Pos())
		e.inside(s.Type)
	case *ast.ValueSpec:
		kind := "var"
		if tok == token.CONST {
			kind = "const"
		}
		for _, n := range s.Names {
			e.emit(kind, n.Name, n.Pos())
		}
		if s.Type != nil {
			e.inside(s.Type)
		}
		for _, v := range s.Values {
			e.inside(v)
		}
	}
}

// inside emits the fields, interface methods and declarations nested in a type or value.
func (e emitter) inside(n ast.Node) {
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.StructType:
			for _, f := range x.Fields.List {
				for _, name := range f.Names {
					e.emit("field", name.Name, name.Pos())
				}
			}
		case *ast.InterfaceType:
			for _, m := range x.Methods.List {
				if _, ok := m.Type.(*ast.FuncType); ok {
					for _, name := range m.Names {
						e.emit("method", name.Name, name.Pos())
					}
				}
			}
		case *ast.GenDecl:
			for _, s := range x.Specs {
				e.spec(s, x.Tok)
			}
			return false
		}
		return true
	})
}

func main() {
	for _, path := range os.Args[1:] {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			row, _ := json.Marshal([]string{"skip", path})
			fmt.Println(string(row))
			continue
		}
		e := emitter{fset, path}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				kind := "function"
				if d.Recv != nil {
					kind = "method"
				}
				e.emit(kind, d.Name.Name, d.Pos())
			case *ast.GenDecl:
				for _, s := range d.Specs {
					e.spec(s, d.Tok)
				}
			}
		}
	}
}
