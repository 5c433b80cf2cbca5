package faults_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
)

func TestBuiltinNames(t *testing.T) {
	names := faults.Builtin().Names()
	assert.True(t, sort.StringsAreSorted(names), "Names is sorted: %v", names)
	for _, want := range []string{
		faults.NameClientTimeout,        // client-timeout
		faults.NameUnavailableBefore,    // 503-before
		faults.NameLostResponse,         // lost-response
		faults.NameDownstreamFailBefore, // downstream-503
	} {
		assert.Contains(t, names, want)
	}
}

func TestEveryBuiltinFault(t *testing.T) {
	// Every registered fault, present and future, keeps the contract of
	// CREATING_FAULTS.md (contractProblems): made with its defaults,
	// answering to its registered name, a fresh value per New, able to do
	// something (an adapter dispatches on these abilities; a fault with
	// none would be silently skipped everywhere), strict settings.
	r := faults.Builtin()
	for _, name := range r.Names() {
		t.Run(name, func(t *testing.T) {
			assert.Empty(t, contractProblems(r, name))
		})
	}
}

func TestBuiltinDefaultsAndAbilities(t *testing.T) {
	// Rows: the four faults of the first release, their defaults, and which optional
	// interfaces it implements (the adapters dispatch on them).
	rows := []struct {
		name                    string
		want                    faults.Fault
		proxy, client, downward bool
	}{
		{faults.NameClientTimeout, &faults.ClientTimeout{Timeout: faults.Duration(100 * time.Millisecond)}, true, true, false},
		{faults.NameUnavailableBefore, &faults.UnavailableBefore{}, true, false, false},
		{faults.NameLostResponse, &faults.LostResponse{Status: http.StatusServiceUnavailable}, true, false, false},
		{faults.NameDownstreamFailBefore, &faults.DownstreamFailBefore{}, false, false, true},
	}
	r := faults.Builtin()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			for _, settings := range []map[string]any{nil, {}} {
				f, err := r.New(row.name, settings)
				require.NoError(t, err)
				assert.Equal(t, row.want, f)
				assert.Equal(t, row.name, f.Name())
				_, proxy := f.(faults.ProxyFault)
				_, client := f.(faults.ClientFault)
				_, downward := f.(faults.DownstreamFault)
				assert.Equal(t, row.proxy, proxy, "ProxyFault")
				assert.Equal(t, row.client, client, "ClientFault")
				assert.Equal(t, row.downward, downward, "DownstreamFault")
			}
		})
	}
}

func TestNewDecodesSettings(t *testing.T) {
	// Rows: each setting of each fault, in the forms a YAML or JSON
	// configuration produces.
	rows := []struct {
		why      string
		name     string
		settings map[string]any
		want     faults.Fault
	}{
		{"a duration string", faults.NameClientTimeout, map[string]any{"timeout": "300ms"},
			&faults.ClientTimeout{Timeout: faults.Duration(300 * time.Millisecond)}},
		{"a compound duration", faults.NameClientTimeout, map[string]any{"timeout": "1m1.5s"},
			&faults.ClientTimeout{Timeout: faults.Duration(61500 * time.Millisecond)}},
		{"a status", faults.NameLostResponse, map[string]any{"status": 504},
			&faults.LostResponse{Status: http.StatusGatewayTimeout}},
		{"a SQLSTATE", faults.NameDepError, map[string]any{"code": "57P01"}, &faults.DepError{Code: "57P01"}},
		{"a Redis error prefix", faults.NameDepError, map[string]any{"code": "LOADING"}, &faults.DepError{Code: "LOADING"}},
	}
	r := faults.Builtin()
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			f, err := r.New(row.name, row.settings)
			require.NoError(t, err)
			assert.Equal(t, row.want, f)
		})
	}
	f, err := r.New(faults.NameClientTimeout, map[string]any{"timeout": "300ms"})
	require.NoError(t, err)
	assert.Equal(t, 300*time.Millisecond, f.(faults.ClientFault).ClientTimeout())
}

func TestNewErrors(t *testing.T) {
	// Rows: each way a configuration can be wrong; the message must name
	// the fault and the problem, so the user can fix the file.
	rows := []struct {
		why      string
		name     string
		settings map[string]any
		setting  string // the setting the error blames
		want     []string
	}{
		{"unknown fault", "slow-reply", nil,
			"", []string{`unknown fault "slow-reply"`, "503-before", "client-timeout", "downstream-503", "lost-response"}},
		{"unknown fault even with settings", "", map[string]any{"x": 1}, "", []string{`unknown fault ""`}},
		{"misspelt setting", faults.NameClientTimeout, map[string]any{"timout": "1s"},
			"timout", []string{"fault client-timeout: settings: timout: unknown setting (client-timeout takes timeout)"}},
		{"misspelt setting beside a good one", faults.NameDepStall, map[string]any{"delay": "2s", "dependncy": "db"},
			"dependncy", []string{"dependncy: unknown setting (dep-stall takes delay, dependency)"}},
		{"setting of a fault that has none", faults.NameUnavailableBefore, map[string]any{"status": 500},
			"status", []string{"fault 503-before", "unknown setting (503-before takes no settings)"}},
		{"setting of a fault that has none (downstream)", faults.NameDownstreamFailBefore, map[string]any{"times": 2},
			"times", []string{"fault downstream-503", "unknown setting"}},
		{"bad duration", faults.NameClientTimeout, map[string]any{"timeout": "soon"},
			"timeout", []string{"fault client-timeout", `invalid duration "soon": write a number and a unit`}},
		{"duration of the wrong type", faults.NameClientTimeout, map[string]any{"timeout": true},
			"timeout", []string{"fault client-timeout", `expected a duration such as "250ms" or "10s", got boolean true`}},
		{"a bare number is no duration (YAML ints decode as int)", faults.NameDepStall, map[string]any{"delay": 500},
			"delay", []string{`fault dep-stall: settings: delay: expected a duration such as "250ms" or "10s", got integer 500`}},
		{"a bare JSON number is no duration", faults.NameClientTimeout, map[string]any{"timeout": float64(5e6)},
			"timeout", []string{"got integer 5000000"}},
		{"fractional nanoseconds", faults.NameClientTimeout, map[string]any{"timeout": 1.5},
			"timeout", []string{"fault client-timeout", "expected a duration", "got number 1.5"}},
		{"status of the wrong type", faults.NameLostResponse, map[string]any{"status": "504"},
			"status", []string{`fault lost-response: settings: status: expected a whole number, got string "504"`}},
		{"code of the wrong type", faults.NameDepError, map[string]any{"code": 99},
			"code", []string{"fault dep-error: settings: code: expected a string, got integer 99"}},
		{"a code no database answers with", faults.NameDepError, map[string]any{"code": "99"},
			"code", []string{`fault dep-error: settings: code: "99" is neither a SQLSTATE (five digits or capital letters, such as 40001 or 57P01) nor a Redis error prefix`}},
		{"a message over two lines", faults.NameDepError, map[string]any{"message": "a\nb"},
			"message", []string{"message: spans lines"}},
		{"a setting out of range", faults.NameDepStall, map[string]any{"delay": "-1s"},
			"delay", []string{"fault dep-stall: settings: delay: must be above zero, got -1s"}},
		{"settings that cannot be JSON", faults.NameLostResponse, map[string]any{"status": func() {}},
			"status", []string{"fault lost-response: settings"}},
	}
	r := faults.Builtin()
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			f, err := r.New(row.name, row.settings)
			require.Error(t, err)
			assert.Nil(t, f)
			for _, w := range row.want {
				assert.Contains(t, err.Error(), w)
			}
			var se *faults.SettingError
			if errors.As(err, &se) {
				assert.Equal(t, row.setting, se.Setting, "the setting blamed")
			} else {
				assert.Empty(t, row.setting, "a *SettingError blaming %s", row.setting)
			}
		})
	}
}

func TestSettingsNamesWhatEachFaultTakes(t *testing.T) {
	r := faults.Builtin()
	assert.Equal(t, []string{"delay", "dependency"}, r.Settings(faults.NameDepStall))
	assert.Equal(t, []string{"code", "dependency", "message"}, r.Settings(faults.NameDepError))
	assert.Equal(t, []string{"timeout"}, r.Settings(faults.NameClientTimeout))
	assert.Empty(t, r.Settings(faults.NameReset))
	assert.Nil(t, r.Settings("no-such-fault"))
}

func TestNewRejectsSettingsThatCannotWork(t *testing.T) {
	rows := []struct {
		why      string
		name     string
		settings map[string]any
	}{
		{"zero timeout", faults.NameClientTimeout, map[string]any{"timeout": "0s"}},
		{"negative timeout", faults.NameClientTimeout, map[string]any{"timeout": "-1s"}},
		{"status below 100", faults.NameLostResponse, map[string]any{"status": 99}},
		{"status above 999", faults.NameLostResponse, map[string]any{"status": 1000}},
		{"status that is not an HTTP status", faults.NameLostResponse, map[string]any{"status": 700}},
	}
	r := faults.Builtin()
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			_, err := r.New(row.name, row.settings)
			assert.Error(t, err)
		})
	}
}

func TestNewReturnsAFreshFaultEachTime(t *testing.T) {
	r := faults.Builtin()
	a, err := r.New(faults.NameLostResponse, map[string]any{"status": 504})
	require.NoError(t, err)
	b, err := r.New(faults.NameLostResponse, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusGatewayTimeout, a.(*faults.LostResponse).Status)
	assert.Equal(t, http.StatusServiceUnavailable, b.(*faults.LostResponse).Status, "settings of one fault leak into the next")
}

// slowReply is a fault defined outside the package, as a user would.
type slowReply struct {
	Delay faults.Duration `json:"delay"`
}

func (*slowReply) Name() string { return "slow-reply" }

func TestRegistryIsAValueNotAGlobal(t *testing.T) {
	r := faults.NewRegistry()
	assert.Empty(t, r.Names())
	r.Register("slow-reply", func() faults.Fault { return &slowReply{Delay: faults.Duration(time.Second)} })
	f, err := r.New("slow-reply", map[string]any{"delay": "2s"})
	require.NoError(t, err)
	assert.Equal(t, &slowReply{Delay: faults.Duration(2 * time.Second)}, f)

	assert.NotContains(t, faults.Builtin().Names(), "slow-reply", "registering in one registry changed another")

	r.Register("slow-reply", func() faults.Fault { return &faults.UnavailableBefore{} })
	f, err = r.New("slow-reply", nil)
	require.NoError(t, err)
	assert.IsType(t, &faults.UnavailableBefore{}, f, "Register replaces an earlier factory")
	assert.Equal(t, []string{"slow-reply"}, r.Names())
}

func TestDurationJSON(t *testing.T) {
	b, err := json.Marshal(struct {
		D faults.Duration `json:"d"`
	}{faults.Duration(1500 * time.Millisecond)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"1.5s"}`, string(b))

	var d faults.Duration
	require.NoError(t, json.Unmarshal([]byte(`"1.5s"`), &d))
	assert.Equal(t, faults.Duration(1500*time.Millisecond), d)
	assert.EqualError(t, json.Unmarshal([]byte(`42`), &d), `expected a duration such as "250ms" or "10s", got integer 42`,
		"a bare number could mean any unit")
	assert.Equal(t, faults.Duration(1500*time.Millisecond), d, "a refused value leaves the duration as it was")
	assert.Error(t, json.Unmarshal([]byte(`"1 second"`), &d))
	assert.Error(t, json.Unmarshal([]byte(`{}`), &d))
}

func TestDownstreamFailBeforeRule(t *testing.T) {
	f := &faults.DownstreamFailBefore{}
	assert.Equal(t, fakes.Rule{Marker: "idem-7f3a", Times: 1, Action: fakes.FailBefore}, f.Rule("idem-7f3a"),
		"one failure, before the effect, only for the attempt's marker")
}
