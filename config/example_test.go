package config_test

import (
	"errors"
	"fmt"

	"github.com/idemcheck/idemcheck/config"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/container"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
	"github.com/idemcheck/idemcheck/targets/webhook/webhookconfig"
)

// A bad configuration is reported in full, each error with its file, line,
// column and field.
func ExampleParse() {
	_, err := config.Parse("idemcheck.yaml", []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - name: charge
        mutating: true
        method: PSOT
        path: /charges/{{input.amount}}
        body: '{"description": "{{marker}}"}'
`))
	fmt.Println(err)

	var first *config.Error
	if errors.As(err, &first) {
		fmt.Printf("first error at line %d, column %d\n", first.Line, first.Column)
	}
	// Output:
	// idemcheck.yaml:9:17: targets[0].operations[0].method: unknown method "PSOT" (expected one of GET, POST, PUT, PATCH, DELETE)
	// idemcheck.yaml:10:15: targets[0].operations[0].path: {{input.amount}} uses input "amount", but this operation declares no inputs: declare it under inputs, e.g. inputs: {amount: {int: [1, 100]}}
	// first error at line 9, column 17
}

// Load returns the configuration with every default filled in.
func ExampleLoad() {
	f, err := config.Load("testdata/valid.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range f.Targets {
		switch t := t.(type) {
		case *clitarget.Section:
			fmt.Printf("%s: key flag %s, timeout %s, %d operations\n", t.Name, t.KeyFlag, t.Timeout, len(t.Operations))
		case *webhookconfig.Section:
			fmt.Printf("%s: %s signature in %s, timeout %s, %d events\n", t.Name, t.Signature.Scheme, t.Signature.Header, t.Timeout, len(t.Events))
		case *container.Section:
			image := t.Image
			if t.Build != nil {
				image = t.Build.Name + ":" + t.Build.Tag + " built from " + t.Build.Binary
			}
			fmt.Printf("%s: image %s at %s, %d operations\n", t.Name, image, t.URL, len(t.Operations))
		case *httpconfig.Section:
			fmt.Printf("%s: key header %s, timeout %s, %d operations\n", t.Name, t.KeyHeader, t.Timeout, len(t.Operations))
		}
	}
	fmt.Println("retry:", f.Retry.MaxAttempts, "attempts,", f.Retry.Backoff, "apart")
	// Output:
	// shop: key header X-Idempotency-Key, timeout 2s, 3 operations
	// mailer.staging: key header Idempotency-Key, timeout 10s, 1 operations
	// orders: key flag --request-id, timeout 3s, 2 operations
	// payment-events: hex signature in X-Hub-Signature-256, timeout 5s, 2 events
	// shop-in-docker: image idemcheck/shop:test built from ./bin/shop at http://127.0.0.1:{{port}}, 1 operations
	// legacy-in-docker: image registry.example.com:5000/team/legacy:2.1 at http://localhost:8080, 1 operations
	// retry: 8 attempts, 20ms apart
}

func ExamplePlaceholders() {
	fmt.Println(config.Placeholders(`/charges/{{ input.id }}?ref={{marker}}`))
	// Output:
	// [input.id marker]
}

// A check made after Parse (a fault's setting held against the target)
// reports a problem at the setting's position.
func ExampleFile_Errorf() {
	f, err := config.Parse("idemcheck.yaml", []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - {name: get, mutating: false, method: GET, path: "/x/{{marker}}"}
faults:
  - name: client-timeout
    timeout: 1h
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Faults[0].Settings["timeout"])
	fmt.Println(f.Errorf("faults[0].timeout", "%v is longer than the target's timeout", f.Faults[0].Settings["timeout"]))
	// Output:
	// 1h
	// idemcheck.yaml:10:14: faults[0].timeout: 1h is longer than the target's timeout
}
