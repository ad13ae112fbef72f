package supervisor

// InterferenceConfig is the watch for foreign load between samples
// (docs/design.md#host-hygiene). The zero value observes: it annotates
// disturbed samples and changes nothing.
type InterferenceConfig struct {
	// Off turns the watch off.
	Off bool
}
