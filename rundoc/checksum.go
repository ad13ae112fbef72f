package rundoc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
)

// A document benchsup writes (WriteJSON, WriteComparisonJSON) ends with a
// checksum member, its last top-level member:
//
//	  ...
//	  ],
//	  "checksum": "sha256:<64 lowercase hex digits>"
//	}
//
// The digest is the SHA-256 of every byte written before the member, up to
// and excluding the comma that precedes it; the member, the closing brace
// and the final newline follow. Taking the member away (with the comma)
// leaves exactly the document without a checksum, and the digest is
// computed as the document streams out. A reader finds the member by
// position, in the last bytes of the file, never by parsing: a document
// whose checksum member is anywhere else, or given twice, is refused.
//
// It is a checksum, not a signature: it proves that a document is whole
// and unedited since it was written, and anyone can recompute it.
const (
	checksumPrefix = ",\n  \"checksum\": \"sha256:"
	checksumSuffix = "\"\n}\n"
	// checksumTailLen is the length of the member and what follows it.
	checksumTailLen = len(checksumPrefix) + sha256.Size*2 + len(checksumSuffix)
)

// MaxDocumentSize is the largest document ReadDocument and ReadComparison
// read: far beyond any real run, it bounds what a hostile file costs.
const MaxDocumentSize = 1 << 30

// Errors of reading a document's checksum and values. Each is wrapped by
// the error a reader returns, so that a caller can tell an incomplete or
// edited file from one that is not a document at all.
var (
	// ErrChecksum: the document's checksum does not verify (wrapped by a
	// *ChecksumError), or its checksum member is not where benchsup
	// writes it.
	ErrChecksum = errors.New("bad checksum")
	// ErrInvalidValue: a value of the document is outside its domain
	// (wrapped by a *ValueError).
	ErrInvalidValue = errors.New("invalid value")
	// ErrTooLarge: the input is larger than MaxDocumentSize.
	ErrTooLarge = errors.New("document too large")
)

// ChecksumError is a document whose content does not hash to the checksum
// it records: it was changed or cut after benchsup wrote it.
type ChecksumError struct {
	Recorded string // hex digest in the document
	Content  string // hex digest of what precedes it
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("checksum mismatch: the document was changed or cut after benchsup wrote it (sha256 recorded %s..., content %s...)",
		abbrev(e.Recorded), abbrev(e.Content))
}

func (e *ChecksumError) Unwrap() error { return ErrChecksum }

func abbrev(h string) string { return h[:min(len(h), 12)] }

// Integrity is what reading a document learned of its checksum.
type Integrity struct {
	// Checksum is the verified "sha256:<hex>" digest of the document; ""
	// when the document has no checksum (written before benchsup wrote
	// one, or edited by hand and the member taken away): it was read
	// without an integrity check.
	Checksum string
}

// Note says, for a document read without an integrity check, why; ""
// when its checksum verified. Callers print it after the file's name.
func (i Integrity) Note() string {
	if i.Checksum != "" {
		return ""
	}
	return "has no checksum (written before benchsup checksummed its documents, or its checksum was taken away); read without an integrity check"
}

// hashingWriter passes writes to w and hashes them; it keeps the first
// error and writes nothing after it.
type hashingWriter struct {
	w   io.Writer
	h   hash.Hash
	err error
}

func newHashingWriter(w io.Writer) *hashingWriter {
	return &hashingWriter{w: w, h: sha256.New()}
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	if hw.err != nil {
		return 0, hw.err
	}
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	hw.err = err
	return n, err
}

// finish writes the checksum member of what was hashed, then the closing
// brace and newline of the document, past the hash.
func (hw *hashingWriter) finish() error {
	if hw.err != nil {
		return hw.err
	}
	tail := checksumPrefix + hex.EncodeToString(hw.h.Sum(nil)) + checksumSuffix
	if _, err := io.WriteString(hw.w, tail); err != nil {
		return err
	}
	return nil
}

// tailHasher reads a document through: it hashes every byte but the last
// checksumTailLen it has seen, which it holds back, since they may be the
// checksum member that the hash excludes. It refuses to read more than
// limit bytes.
type tailHasher struct {
	r     io.Reader
	h     hash.Hash
	tail  []byte
	n     int64
	limit int64
}

func newTailHasher(r io.Reader, limit int64) *tailHasher {
	return &tailHasher{r: r, h: sha256.New(), tail: make([]byte, 0, 2*checksumTailLen), limit: limit}
}

func (t *tailHasher) Read(p []byte) (int, error) {
	if t.n >= t.limit {
		// Is there more? One byte beyond the limit is too large.
		var b [1]byte
		if n, _ := io.ReadFull(t.r, b[:]); n > 0 {
			return 0, fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, t.limit)
		}
		return 0, io.EOF
	}
	if rest := t.limit - t.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := t.r.Read(p)
	t.n += int64(n)
	for rest := p[:n]; len(rest) > 0; {
		// Keep at most checksumTailLen held back, hashing what falls out.
		k := min(len(rest), cap(t.tail)-len(t.tail))
		t.tail = append(t.tail, rest[:k]...)
		rest = rest[k:]
		if over := len(t.tail) - checksumTailLen; over > 0 {
			t.h.Write(t.tail[:over])
			t.tail = t.tail[:copy(t.tail, t.tail[over:])]
		}
	}
	return n, err
}

// drain reads the rest of the input, which must be white space only.
func (t *tailHasher) drain(buffered io.Reader) (trailing bool, err error) {
	var buf [32 << 10]byte
	for _, r := range []io.Reader{buffered, t} {
		for {
			n, err := r.Read(buf[:])
			if len(bytes.TrimLeft(buf[:n], " \t\r\n")) > 0 {
				return true, nil
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// checksumMember counts the top-level "checksum" members a decoded
// document has (encoding/json decodes each occurrence of a repeated key),
// so that a second one, or one out of place, is seen.
type checksumMember struct{ n int }

func (c *checksumMember) UnmarshalJSON([]byte) error {
	c.n++
	return nil
}

// verify checks the checksum of a document read through t to its end,
// whose decoding found member.n checksum members.
func (t *tailHasher) verify(member checksumMember) (Integrity, error) {
	tail := t.tail
	hexSum, placed := "", len(tail) == checksumTailLen &&
		bytes.HasPrefix(tail, []byte(checksumPrefix)) && bytes.HasSuffix(tail, []byte(checksumSuffix))
	if placed {
		hexSum = string(tail[len(checksumPrefix) : len(tail)-len(checksumSuffix)])
		if b, err := hex.DecodeString(hexSum); err != nil || len(b) != sha256.Size || hex.EncodeToString(b) != hexSum {
			placed = false
		}
	}
	switch {
	case member.n == 0 && !placed:
		return Integrity{}, nil
	case !placed:
		return Integrity{}, fmt.Errorf("%w: the checksum member is not where benchsup writes it (the last member, \"sha256:\" and 64 lowercase hex digits, followed by } and a newline)", ErrChecksum)
	case member.n != 1:
		return Integrity{}, fmt.Errorf("%w: %d checksum members; benchsup writes one, last", ErrChecksum, member.n)
	}
	if got := hex.EncodeToString(t.h.Sum(nil)); got != hexSum {
		return Integrity{}, &ChecksumError{Recorded: hexSum, Content: got}
	}
	return Integrity{Checksum: "sha256:" + hexSum}, nil
}
