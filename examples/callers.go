package examples

import (
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// TwoCallers are the credentials of two callers of the shop: distinct
// Authorization headers, which it scopes its keys by.
func TwoCallers() []httptarget.Caller {
	return []httptarget.Caller{
		{Headers: map[string]string{"Authorization": "Bearer caller-one"}},
		{Headers: map[string]string{"Authorization": "Bearer caller-two"}},
	}
}

// CallersShopSpec is ShopSpec with two callers' credentials (TwoCallers),
// whatever the profile: key.scope then sends one key from both.
func CallersShopSpec(exe, profile string) harness.Spec {
	return shopSpecNamed(exe, profile, profile, true)
}
