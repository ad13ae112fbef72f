package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is the module version this binary was built from, as the Go
// toolchain recorded it ("(devel)" for a build inside the repository).
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return "unknown"
}

// describeBuild is what `benchsup version` prints: the module version, the
// toolchain, and the version control facts the go command stamped (absent
// from a build with -buildvcs=false or outside a repository, and from go
// install module@version, which builds from the module cache).
func describeBuild(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "benchsup: no build information in this binary\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "benchsup %s %s\n", info.Main.Version, info.GoVersion)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func versionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print benchsup's version, the Go toolchain that built it and its revision",
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("version takes no arguments, got %q", c.Args().First())
			}
			_, err := io.WriteString(stdout, describeBuild(debug.ReadBuildInfo()))
			return err
		},
	}
}
