package main

import (
	"github.com/idemcheck/idemcheck/config"
)

// configSecrets returns every value the configuration marks secret (see
// config.File.Secrets: the {{env.NAME}} values it uses, its config.Secret
// fields, the credentials written in its headers), so that none of them
// reaches a report or the terminal, even when a target prints it back.
func configSecrets(file *config.File) []string {
	return file.Secrets()
}
