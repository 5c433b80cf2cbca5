package config_test

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

func withFakes(section string) string {
	return strings.Replace(minimal, "targets:\n", section+"targets:\n", 1)
}

func TestFakesAtFixedAddresses(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(withFakes(`fakes:
  payments: {listen: "127.0.0.1:4242"}
  email: {listen: "127.0.0.1:4243", smtp: "127.0.0.1:2525"}
  webhooks: {}
`)))
	require.NoError(t, err)
	assert.Equal(t, []config.FixedAddress{
		{Fake: "payments", Addr: "127.0.0.1:4242", Path: "fakes.payments.listen"},
		{Fake: "email", Addr: "127.0.0.1:4243", Path: "fakes.email.listen"},
		{Fake: "email smtp", Addr: "127.0.0.1:2525", Path: "fakes.email.smtp"},
	}, f.FixedAddresses())
}

func TestFakesListenErrors(t *testing.T) {
	for _, tc := range []struct {
		why, section string
		want         []want
	}{
		{"a fake listens on this machine only", "fakes:\n  payments: {listen: \"0.0.0.0:4242\"}\n",
			[]want{{3, 22, "fakes.payments.listen", `host "0.0.0.0" is not a loopback address`}}},
		{"host:port", "fakes:\n  payments: {listen: \"4242\"}\n",
			[]want{{3, 22, "fakes.payments.listen", "write host:port"}}},
		{"a real port", "fakes:\n  webhooks: {listen: \"127.0.0.1:99999\"}\n",
			[]want{{3, 22, "fakes.webhooks.listen", `invalid port "99999"`}}},
		{"two fakes, one address", "fakes:\n  payments: {listen: \"127.0.0.1:4242\"}\n  email: {smtp: \"127.0.0.1:4242\"}\n",
			[]want{{4, 17, "fakes.email.smtp", "127.0.0.1:4242 is also fakes.payments.listen"}}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(withFakes(tc.section)))
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, len(tc.want), "%v", err)
			for i, w := range tc.want {
				assert.Equal(t, w.path, errs[i].Path)
				assert.Equal(t, []int{w.line, w.col}, []int{errs[i].Line, errs[i].Column}, "%v", errs[i])
				assert.Contains(t, errs[i].Msg, w.msg)
			}
		})
	}
}

func TestCheckFreeReportsATakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	f, err := config.Parse("idemcheck.yaml", []byte(withFakes("fakes:\n  payments: {listen: \""+taken.Addr().String()+"\"}\n")))
	require.NoError(t, err)
	err = f.CheckFree()
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 1)
	assert.Equal(t, "fakes.payments.listen", errs[0].Path)
	assert.Equal(t, 3, errs[0].Line)
	assert.Contains(t, errs[0].Msg, taken.Addr().String()+" cannot be bound")
	taken.Close()
	assert.NoError(t, f.CheckFree(), "free again")
}
