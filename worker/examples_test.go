package worker

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

func TestExampleMismatch(t *testing.T) {
	tests := []struct {
		name, got, want string
		unordered       bool
		msg             string
	}{
		{"same", "hello\n", "hello", false, ""},
		{"surrounding space ignored", "\n  hello \n\n", "hello\n", false, ""},
		{"different", "hi\n", "bye\n", false, "got:\nhi\nwant:\nbye\n"},
		{"order matters", "b\na\n", "a\nb\n", false, "got:\nb\na\nwant:\na\nb\n"},
		{"unordered same", "b\na\n", "a\nb\n", true, ""},
		{"unordered different", "b\nc\n", "a\nb\n", true, "got:\nb\nc\n\nwant (unordered):\na\nb\n\n"},
		{"empty output", "", "", false, ""},
		{"empty output expected", "x", "", false, "got:\nx\nwant:\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := exampleMismatch(tt.got, tt.want, tt.unordered); msg != tt.msg {
				t.Errorf("exampleMismatch(%q, %q, %v) = %q, want %q", tt.got, tt.want, tt.unordered, msg, tt.msg)
			}
		})
	}
}

// Examples run after every Test function, internal and external, as
// under go test, whatever order the packages' init functions register
// them in.
func TestRegisterExampleOrder(t *testing.T) {
	registry.mu.Lock()
	saved, savedN := registry.tests, registry.examples
	registry.tests, registry.examples = nil, 0
	registry.mu.Unlock()
	t.Cleanup(func() {
		registry.mu.Lock()
		registry.tests, registry.examples = saved, savedN
		registry.mu.Unlock()
	})
	RegisterTest("TestA", func(*testing.T) {})
	RegisterExample("ExampleA", func() {}, "", false)
	RegisterTest("TestB", func(*testing.T) {})
	RegisterExample("ExampleB", func() {}, "", false)
	var names []string
	for _, tt := range registry.tests {
		names = append(names, tt.Name)
	}
	want := "TestA TestB ExampleA ExampleB"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("registered order %q, want %q", got, want)
	}
}

// An example's output is captured and checked; one that panics has what
// it printed written out, and the panic goes on.
func TestRunExample(t *testing.T) {
	tests := []struct {
		name    string
		f       func()
		output  string
		msg     string
		printed string // to the real stdout
		panics  bool
	}{
		{"pass", func() { fmt.Println("hello") }, "hello\n", "", "", false},
		{"mismatch", func() { fmt.Println("hi") }, "bye\n", "got:\nhi\nwant:\nbye\n", "", false},
		{"panic", func() { fmt.Println("before"); panic("boom") }, "before\n", "", "before\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			saved := os.Stdout
			os.Stdout = w
			var msg string
			var recovered any
			func() {
				defer func() { recovered = recover() }()
				msg = runExample(tt.f, tt.output, false)
			}()
			os.Stdout = saved
			w.Close()
			printed, _ := io.ReadAll(r)
			if msg != tt.msg {
				t.Errorf("message %q, want %q", msg, tt.msg)
			}
			if string(printed) != tt.printed {
				t.Errorf("printed %q, want %q", printed, tt.printed)
			}
			if (recovered != nil) != tt.panics {
				t.Errorf("panic %v, want one: %v", recovered, tt.panics)
			}
		})
	}
}
