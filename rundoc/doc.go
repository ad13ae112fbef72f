// Package rundoc is the run document: what a benchsup run measured
// (Document, Row, ProcessResult, Summary, Window, Sweep, ...), what a
// comparison of two runs found (Comparison, ComparisonRow, Geomean,
// SweepChange), and their JSON
// reader and writer, checksum, validation and merge.
//
// The JSON documents it writes (a run's, a comparison's) end with a
// checksum of their content, and stream out, never held whole twice.
// Reading one back (ReadDocument, ReadComparison) treats it as untrusted
// input: it verifies the checksum, the schema and the domain of every
// value, and refuses what fails with one line naming it; a document
// without a checksum (an older one) is read, and the reader says so.
// Decoding is strict (an unknown member at any depth, a top-level member
// twice, null where the writer writes an array are refused with their
// path) and streams each array element by element, so that memory is
// proportional to the document. ReadDocumentFile and ReadComparisonFile
// read a path only when it is a regular file within the size cap,
// checked on the open file before a byte is read (a FIFO cannot block).
// Unavailable values are null in JSON, never 0.
//
// What it deliberately does not do: measure, compute statistics, or render
// (package report renders a Document; the statistics that fill it are
// computed where it is built). It imports nothing of benchsup's, and its
// exported fields use only its own types, so a tool can read and write
// documents without the supervisor.
package rundoc
