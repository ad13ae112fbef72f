// Command gensyscalls writes sources' syscall tables
// (syscalltable_linux_<arch>.go): each linux/<arch> syscall name mapped to
// its number, read from the zsysnum_linux_<arch>.go file of
// golang.org/x/sys/unix at a pinned version, which that module generates
// from the kernel's headers (asm/unistd.h). The module is fetched as the
// go command fetches any module (go mod download: the module cache, else
// the module proxy), so the tables are reproducible offline once it is
// cached. sources imports only the standard library, so the table holds
// literals rather than unix's constants.
//
// Usage, from the sources directory (see the go:generate line in doc.go):
//
//	go run ./internal/gensyscalls -sys v0.50.0 amd64 arm64
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	version := flag.String("sys", "", "golang.org/x/sys version to read the numbers from")
	out := flag.String("o", ".", "directory to write syscalltable_linux_<arch>.go to")
	flag.Parse()
	if *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gensyscalls -sys VERSION ARCH...")
		os.Exit(2)
	}
	if err := run(*version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gensyscalls:", err)
		os.Exit(1)
	}
}

func run(version, out string, arches []string) error {
	dir, err := moduleDir("golang.org/x/sys@" + version)
	if err != nil {
		return err
	}
	for _, arch := range arches {
		name := "zsysnum_linux_" + arch + ".go"
		nums, err := syscallNumbers(filepath.Join(dir, "unix", name))
		if err != nil {
			return err
		}
		src, err := table(version, name, arch, nums)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "syscalltable_linux_"+arch+".go"), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleDir is the directory of module@version in the module cache,
// downloaded first if needed.
func moduleDir(modVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	return m.Dir, nil
}

// syscallNumbers reads the SYS_ constants of a zsysnum file: the
// constant's suffix in lower case (the kernel's name) to its value.
func syscallNumbers(path string) (map[string]int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	nums := map[string]int{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				suffix, ok := strings.CutPrefix(id.Name, "SYS_")
				if !ok || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					return nil, fmt.Errorf("%s: %s is not an integer literal", path, id.Name)
				}
				n, err := strconv.ParseInt(lit.Value, 0, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, id.Name, err)
				}
				nums[strings.ToLower(suffix)] = int(n)
			}
		}
	}
	if len(nums) == 0 {
		return nil, fmt.Errorf("%s: no SYS_ constants", path)
	}
	return nums, nil
}

// table is the source of syscalltable_linux_<arch>.go, gofmt'ed.
func table(version, from, arch string, nums map[string]int) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated from golang.org/x/sys/unix %s %s; DO NOT EDIT.\n\n", version, from)
	fmt.Fprintf(&b, "package sources\n\n")
	fmt.Fprintf(&b, "// syscallNumbers maps each linux/%s syscall name (the SYS_ constant's suffix\n", arch)
	b.WriteString("// in lower case, which is the kernel's name for it) to its number. The\n" +
		"// numbers are literals, not the constants: the package imports only the\n" +
		"// standard library (see the package doc).\n")
	b.WriteString("var syscallNumbers = map[string]int{\n")
	names := make([]string, 0, len(nums))
	for name := range nums {
		names = append(names, name)
	}
	// In the order of the constants' names (SYS_GETXATTRAT before
	// SYS_GET_KERNEL_SYMS), as the tables were first written.
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToUpper(a), strings.ToUpper(b)) })
	for _, name := range names {
		fmt.Fprintf(&b, "\t%q: %d,\n", name, nums[name])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
