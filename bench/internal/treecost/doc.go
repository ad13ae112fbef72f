// Package treecost times a command by its wall time and the CPU time of
// its whole process tree, for the studies under bench/ that set benchsup
// beside go test (fixedcost, flood). The calling process makes itself the
// child subreaper, so that every descendant, however it was started, is
// reaped here and its CPU counted in RUSAGE_CHILDREN.
//
// It is Linux-only (PR_SET_CHILD_SUBREAPER) and does not judge what it
// measures: the studies print medians and ranges, and their ratios.
package treecost
