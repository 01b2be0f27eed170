// Command exports counts the exported identifiers of each package of the
// main module (make exports): top-level names (constants, variables, types,
// functions), the exported methods of exported types and the exported
// fields of exported struct types. Test files, and the modules nested in the
// tree (e2e, bench/peers, fuzz/sseoracle), are not counted.
//
//	go run ./internal/tools/exports [-v] [root]
//
// prints one line per package: its path, the three counts and their sum,
// then the module's totals. -v also lists the names.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// counts are one package's exported identifiers.
type counts struct {
	decls, methods, fields int
	names                  []string
}

func (c *counts) total() int { return c.decls + c.methods + c.fields }

func main() {
	verbose := flag.Bool("v", false, "list the names too")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	pkgs, err := scan(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "exports:", err)
		os.Exit(1)
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var sum counts
	fmt.Printf("%-24s %6s %8s %7s %6s\n", "package", "decls", "methods", "fields", "total")
	for _, d := range dirs {
		c := pkgs[d]
		fmt.Printf("%-24s %6d %8d %7d %6d\n", d, c.decls, c.methods, c.fields, c.total())
		if *verbose {
			sort.Strings(c.names)
			fmt.Printf("    %s\n", strings.Join(c.names, " "))
		}
		sum.decls += c.decls
		sum.methods += c.methods
		sum.fields += c.fields
	}
	fmt.Printf("%-24s %6d %8d %7d %6d\n", "all", sum.decls, sum.methods, sum.fields, sum.total())
}

// scan counts every package directory below root, skipping testdata and
// directories that hold their own go.mod.
func scan(root string) (map[string]*counts, error) {
	out := map[string]*counts{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		c, err := countDir(path)
		if err != nil || c == nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = c
		return nil
	})
	return out, err
}

// countDir counts the exported identifiers of the package in dir, or
// returns nil when dir holds no Go file but tests.
func countDir(dir string) (*counts, error) {
	fset := token.NewFileSet()
	filter := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, filter, parser.SkipObjectResolution)
	if err != nil || len(pkgs) == 0 {
		return nil, err
	}
	c := &counts{}
	for _, p := range pkgs {
		if p.Name == "main" {
			continue // a command exports nothing
		}
		for _, f := range p.Files {
			c.file(f)
		}
	}
	return c, nil
}

func (c *counts) file(f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				c.decls++
				c.names = append(c.names, d.Name.Name)
			} else if r := recvName(d.Recv.List[0].Type); ast.IsExported(r) {
				c.methods++
				c.names = append(c.names, r+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							c.decls++
							c.names = append(c.names, n.Name)
						}
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					c.decls++
					c.names = append(c.names, s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								if n.IsExported() {
									c.fields++
									c.names = append(c.names, s.Name.Name+"."+n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

// recvName is the name of a method's receiver type.
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
