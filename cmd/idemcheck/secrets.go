package main

import (
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/reports"
)

// configSecrets returns every value the configuration marks secret (see
// config.File.Secrets: the {{env.NAME}} values it uses, its config.Secret
// fields, the credentials written in its headers), the values it writes
// into a target's environment as is that are secrets by their name or
// shape (config.File.EnvSettings, reports.ConfigEnvSecrets), and every
// value of idemcheck's own environment that may be one (envSecrets), so
// that none of them reaches a report or the terminal, even when a target
// prints it back.
func configSecrets(file *config.File) []string {
	out := append(file.Secrets(), reports.ConfigEnvSecrets(file.EnvSettings())...)
	return append(out, envSecrets()...)
}

// envSecrets returns the values of idemcheck's environment that no report
// or terminal line may hold (reports.EnvSecrets): a target inherits them,
// and may print them.
func envSecrets() []string {
	return reports.OwnEnvSecrets()
}
