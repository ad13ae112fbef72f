package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/benchsup/benchsup/sources"
	"github.com/benchsup/benchsup/supervisor"
)

// listMetrics prints the catalog, then one capability block per source as
// probed on this host, with the reason for every absence.
func listMetrics(w io.Writer, scaled bool) error {
	reports := supervisor.ProbeSources(scaled)
	available := map[string]bool{}
	for _, r := range reports {
		available[r.Source] = r.Available
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\theader\tunit\tclass\tsource\tdefault\there")
	for _, d := range sources.Catalog() {
		def, here := "", "available"
		if d.Default {
			def = "yes"
		}
		if !available[d.Source] {
			here = "absent"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Header, d.Unit, d.Class, d.Source, def, here)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reports {
		state := "available"
		if !r.Available {
			state = "unavailable"
		}
		fmt.Fprintf(w, "\n%s: %s\n", r.Source, state)
		if r.Status != "" {
			fmt.Fprintf(w, "  status: %s\n", r.Status)
		}
		for _, d := range r.Degraded {
			fmt.Fprintf(w, "  degraded: %s\n", d)
		}
		for _, a := range r.Absences {
			fmt.Fprintf(w, "  absent: %s (%s): %s\n", a.Capability, strings.Join(a.Metrics, ", "), a.Reason)
		}
	}
	return nil
}
