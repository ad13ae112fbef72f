//go:build linux

package sources

func platformSources() []source {
	return []source{perfHW{}, perfSW{}, tier0{}, syscallSource{}, rawSource{}}
}
