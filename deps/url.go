package deps

import (
	"fmt"
	"net/url"
)

// ReplaceHost returns rawURL (postgres://user:pw@host:port/db?…,
// redis://…) with its host and port replaced by addr, so that a target
// given the result reaches its database through the proxy at addr with
// the same credentials, database and options.
func ReplaceHost(rawURL, addr string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("the dependency URL %q does not parse: %w", rawURL, err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("the dependency URL %q has no host:port to replace with the proxy's %s; write it as scheme://host:port/…", rawURL, addr)
	}
	u.Host = addr
	return u.String(), nil
}
