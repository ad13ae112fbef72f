// Package ptytest opens pseudo-terminals for the tests of the live
// displays (report's and the CLI's), which draw only on a terminal.
// Tests only; Linux only.
package ptytest
