package report

import (
	"slices"
	"testing"
)

// TestGoTestReport rebuilds go test's non-verbose report of a failure from
// the verbose output the worker records (a subtest's result line where it
// ended, "=== NAME" where the printing test changes), on go test's own
// output of the same test (go1.26, `go test` of TestA below; the test
// records the worker's output of it under benchsup):
//
//	func TestA(t *testing.T) {
//		fmt.Println("printed by A")
//		t.Log("log of A")
//		t.Run("sub", func(t *testing.T) { t.Log("log of sub"); t.Error("sub failed") })
//		t.Run("ok", func(t *testing.T) { t.Log("quiet") })
//		t.Run("deep", func(t *testing.T) {
//			t.Run("er", func(t *testing.T) { t.Error("a\nb") })
//		})
//		t.Error("A failed")
//	}
func TestGoTestReport(t *testing.T) {
	recorded := "printed by A\n" +
		"    f_test.go:10: log of A\n" +
		"=== NAME  TestA/sub\n" +
		"    f_test.go:11: log of sub\n" +
		"    f_test.go:11: sub failed\n" +
		"--- FAIL: TestA/sub (0.00s)\n" +
		"=== NAME  TestA/ok\n" +
		"    f_test.go:12: quiet\n" +
		"--- PASS: TestA/ok (0.00s)\n" +
		"=== NAME  TestA/deep/er\n" +
		"    f_test.go:14: a\n" +
		"        b\n" +
		"--- FAIL: TestA/deep/er (0.00s)\n" +
		"--- FAIL: TestA/deep (0.00s)\n" +
		"=== NAME  TestA\n" +
		"    f_test.go:16: A failed\n"
	printed, body := goTestReport("TestA", recorded)
	if want := []string{"printed by A"}; !slices.Equal(printed, want) {
		t.Errorf("printed %q, want %q", printed, want)
	}
	// go test's lines under "--- FAIL: TestA (0.00s)", less its indent.
	want := []string{
		"f_test.go:10: log of A",
		"--- FAIL: TestA/sub (0.00s)",
		"    f_test.go:11: log of sub",
		"    f_test.go:11: sub failed",
		"--- FAIL: TestA/deep (0.00s)",
		"    --- FAIL: TestA/deep/er (0.00s)",
		"        f_test.go:14: a",
		"            b",
		"f_test.go:16: A failed",
	}
	if !slices.Equal(body, want) {
		t.Errorf("body:\n%q\nwant:\n%q", body, want)
	}
}
