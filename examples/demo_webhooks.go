package examples

import (
	"context"

	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/examples/webhooks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	webhooksink "github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// WebhooksName is the name of the reference webhook handler under
// Subcommand: idemcheck __example webhooks --profile NAME ….
const WebhooksName = reference.Webhooks

// WebhookSecret is the signing secret the demo's sender and handlers share.
const WebhookSecret = "whsec_idemcheck_demo"

// WebhookDemoProfiles are the webhook handler profiles in the demo.
var WebhookDemoProfiles = []string{"correct", "lru-memory", "mark-seen-first", "no-signature", "high-water-mark"}

// WebhookDemo returns the reference webhook handlers and the order service
// that also sends a confirmation email, started by running exe (a binary
// that understands Subcommand; normally idemcheck itself).
func WebhookDemo(exe string) []DemoTarget { return webhookDemo(exe, exe) }

// webhookDemo is WebhookDemo with the order service that sends email
// started from shopExe.
func webhookDemo(exe, shopExe string) []DemoTarget {
	var out []DemoTarget
	for _, name := range WebhookDemoProfiles {
		info, _ := webhooks.Describe(name)
		out = append(out, DemoTarget{Spec: WebhookSpec(exe, name), Built: info.Score, Flaw: info.Flaw})
	}
	out = append(out, DemoTarget{Spec: ShopEmailSpec(shopExe, "correct"), Built: 3})
	out = append(out, DemoTarget{Spec: ShopEmailWithoutKeySpec(shopExe), Built: EmailWithoutKeyScore, Flaw: EmailWithoutKeyFlaw})
	return out
}

// The shop that charges under the client's key and then sends its
// confirmation email without it (ShopEmailWithoutKeySpec): its score as
// built, and its flaw.
const (
	EmailWithoutKeyScore = 0
	EmailWithoutKeyFlaw  = "charges under the client's key, then sends the confirmation email without it: a retry after an email that was sent but never confirmed finds the charge replayed and sends the email again"
)

// ShopEmailWithoutKeySpec is the correct shop with email (ShopEmailSpec)
// with one flaw: the email is sent without the client's key
// (--email-without-key). Only a fault at the second downstream call of an
// order, the email, shows it. The target is named "email-without-key".
func ShopEmailWithoutKeySpec(exe string) harness.Spec {
	return shopEmailSpec(exe, "correct", "email-without-key", "--email-without-key")
}

// WebhookConfig is the webhook adapter configuration of the reference
// handler: invoice.due events that charge, and pings that must not.
func WebhookConfig(name string) webhook.Config {
	return webhook.Config{
		Name:      name,
		BaseURL:   "http://127.0.0.1:{{port}}",
		Signature: webhook.Signature{Secret: WebhookSecret, Header: webhooks.SignatureHeader},
		Events: []webhook.Event{
			{
				Name: "invoice.due", Path: webhooks.Path,
				Body: `{"id":"{{key}}","type":"invoice.due","created":{{created}},` +
					`"data":{"customer":"{{input.customer}}","amount":{{input.amount}},"description":"invoice {{marker}}"}}`,
				Inputs: map[string]harness.Input{
					"customer": {Kind: "string", Prefix: "cus_", Length: 8},
					"amount":   {Kind: "int", Min: 100, Max: 99999},
				},
			},
			{
				Name: "ping", Safe: true, Path: webhooks.Path,
				Body: `{"id":"{{key}}","type":"ping","created":{{created}},"data":{"trace":"{{marker}}"}}`,
			},
		},
	}
}

// WebhookSpec is the harness spec of one reference webhook handler profile,
// started from exe; the target is named "webhook-PROFILE".
func WebhookSpec(exe, profile string) harness.Spec {
	launch := &httptarget.Launch{
		Command: []string{exe, Subcommand, WebhooksName, "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--secret", WebhookSecret, "--state", "{{state_dir}}"},
		ReadyPath: "/healthz",
	}
	return webhook.Spec(WebhookConfig("webhook-"+profile), launch, PaymentsFake)
}

// ShopEmailSpec is the shop with profile whose orders also send a
// confirmation email through the email fake (--email): two side effects
// per order, each to happen once. The target is named "PROFILE-email".
func ShopEmailSpec(exe, profile string) harness.Spec {
	return shopEmailSpec(exe, profile, profile+"-email")
}

// shopEmailSpec is the shop with profile and email, named name, started
// with the extra flags.
func shopEmailSpec(exe, profile, name string, flags ...string) harness.Spec {
	cfg := ShopConfig(name, profile != "nokey" && profile != "nodryrun")
	launch := &httptarget.Launch{
		Command: append([]string{exe, Subcommand, "shop", "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--email", "{{fakes.email.url}}", "--state", "{{state_dir}}"}, flags...),
		ReadyPath: "/healthz",
	}
	return httptarget.Spec(cfg, launch, PaymentsFake, EmailFake)
}

// EmailFake starts the email fake (SMTP and HTTP) writing into the
// harness's ledger.
func EmailFake(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
	return email.New(email.Options{Ledger: l})
}

// WebhookSinkFake starts the webhook sink writing into the harness's
// ledger.
func WebhookSinkFake(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
	return webhooksink.New(webhooksink.Options{Ledger: l})
}
