// Package httpconfig is the http kind of the configuration file: its
// section (Section, and Fields, which the container kind shares), how the
// section is checked and given its defaults, and the harness.Spec it
// becomes through package targets/http (Section.Spec). ConfigKind
// registers it (config.Builtin).
//
// It is a package of its own so that a Go test that checks an
// http.Handler with targets/http (CheckHandler, HandlerSpec) does not
// build what the configuration file needs: its schema, the observers and
// their database drivers.
package httpconfig
