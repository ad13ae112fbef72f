package scan

// No testing import: nothing here is a test even with the right names.
type T struct{}

func TestNoImport(t *T) {}
