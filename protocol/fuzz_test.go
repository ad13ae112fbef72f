package protocol

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReceive feeds arbitrary bytes to the decoder. Every input must end in
// messages, a clean io.EOF, or an error wrapping ErrMalformed; no panic, and
// every decoded message must survive re-encoding (so it is within bounds).
// A located refusal names a field under its frame's kind and an offset
// inside the input. The seed corpus lives in testdata/fuzz/FuzzReceive.
func FuzzReceive(f *testing.F) {
	for _, m := range sampleMessages() {
		b, err := AppendFrame(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewConn(bytes.NewBuffer(data))
		for {
			m, err := c.Receive()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrMalformed) {
					t.Fatalf("error neither EOF nor malformed: %v", err)
				}
				var me *MalformedError
				if errors.As(err, &me) {
					if me.Offset < 0 || me.Offset > len(data) {
						t.Fatalf("offset %d outside the %d-byte input: %v", me.Offset, len(data), err)
					}
					if me.Field != "" && (me.Offset == 0 || !strings.HasPrefix(me.Field, me.Kind.String())) {
						t.Fatalf("field %q not located in a %s frame: %v", me.Field, me.Kind, err)
					}
				}
				return
			}
			if _, err := AppendFrame(nil, m); err != nil {
				t.Fatalf("decoded %s does not re-encode: %v", m.Kind(), err)
			}
		}
	})
}

var updateCorpus = flag.Bool("update", false, "rewrite testdata/fuzz/FuzzReceive from sampleMessages")

// TestSeedCorpus keeps the checked-in seed corpus in step with the message
// set: one valid frame of every kind, a stream of all of them, and a
// truncated copy of each.
func TestSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReceive")
	var stream []byte
	want := map[string][]byte{}
	for _, m := range sampleMessages() {
		b, err := AppendFrame(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, b...)
		want["valid-"+m.Kind().String()] = b
		want["truncated-"+m.Kind().String()] = b[:len(b)/2]
	}
	want["stream-all-kinds"] = stream
	for name, data := range want {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if *updateCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("seed corpus: %v (run go test ./protocol -run TestSeedCorpus -update)", err)
		}
		if string(got) != content {
			t.Errorf("seed %s is stale (run go test ./protocol -run TestSeedCorpus -update)", name)
		}
	}
}
