package rundoc

// Internals the external tests of the document need.

const (
	ChecksumPrefix  = checksumPrefix
	ChecksumSuffix  = checksumSuffix
	ChecksumTailLen = checksumTailLen
)

// ReadDocumentLimited is ReadDocument with its size limit given.
var ReadDocumentLimited = readDocument

// ReaderMembers are the names of the top-level members the reader of a
// run document (comparison false) or of a comparison document decodes.
func ReaderMembers(comparison bool) []string {
	ms := documentMembers(new(Document), new(checksumMember))
	if comparison {
		ms = comparisonMembers(new(Comparison), new(checksumMember))
	}
	var out []string
	for _, m := range ms {
		if !m.foreign {
			out = append(out, m.name)
		}
	}
	return out
}

// Normalize is the whole document as WriteJSON streams it, normalized
// part by part: encoded whole, it is the oracle of the streamed bytes.
func Normalize(doc Document) Document {
	if doc.Schema == 0 {
		doc.Schema = SchemaVersion
	}
	doc.Meta = normalizeMeta(doc.Meta)
	doc.Columns = orEmpty(doc.Columns)
	rows := make([]Row, len(doc.Rows))
	for i, r := range doc.Rows {
		rows[i] = normalizeRow(r, doc.Columns)
	}
	doc.Rows = rows
	if len(doc.Windows) > 0 {
		windows := make([]Window, len(doc.Windows))
		for i, w := range doc.Windows {
			w.Totals = orEmptyMap(w.Totals)
			windows[i] = w
		}
		doc.Windows = windows
	} else {
		doc.Windows = nil
	}
	sweeps := make([]Sweep, len(doc.Sweeps))
	for i, sw := range doc.Sweeps {
		sweeps[i] = normalizeSweep(sw)
	}
	if len(sweeps) == 0 {
		sweeps = nil
	}
	doc.Sweeps = sweeps
	return doc
}
