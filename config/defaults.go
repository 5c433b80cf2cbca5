package config

// applyDefaults fills in what a valid file left out, so that consumers of
// a File never need to know the defaults.
func (f *File) applyDefaults() {
	if p := f.Fakes.Payments; p != nil && p.HonourKeys == nil {
		honour := true
		p.HonourKeys = &honour
	}
	if e := f.Fakes.Email; e != nil && e.HonourKeys == nil {
		honour := true
		e.HonourKeys = &honour
	}
	if w := f.Fakes.Webhooks; w != nil {
		if w.HonourKeys == nil {
			honour := true
			w.HonourKeys = &honour
		}
		if w.KeyHeader == "" {
			w.KeyHeader = DefaultKeyHeader
		}
	}
	if f.Faults == nil { // an explicit "faults: []" stays empty
		for _, name := range DefaultFaults {
			f.Faults = append(f.Faults, FaultSpec{Name: name})
		}
	}
	if f.Retry.MaxAttempts == 0 {
		f.Retry.MaxAttempts = DefaultMaxAttempts
	}
	if f.Retry.Backoff == 0 {
		f.Retry.Backoff = Duration(DefaultBackoff)
	}
	if f.Retry.StuckWait == 0 {
		f.Retry.StuckWait = Duration(DefaultStuckWait)
	}
	if f.Retry.Burst == 0 {
		f.Retry.Burst = DefaultBurst
	}
	for i := range f.Targets {
		f.Targets[i].applyDefaults()
	}
}

func (t *Target) applyDefaults() {
	if t.Kind == KindHTTP {
		t.applyLimits()
	}
	for i := range t.Observe {
		t.Observe[i].applyDefaults()
	}
	if t.Kind == KindCLI {
		if t.KeyFlag == "" {
			t.KeyFlag = DefaultKeyFlag
		}
		if t.DryRunFlag == nil {
			flag := DefaultDryRunFlag
			t.DryRunFlag = &flag
		}
		if t.RetryExitCodes == nil {
			t.RetryExitCodes = append([]int(nil), DefaultRetryExitCodes...)
		}
	} else if t.KeyHeader == "" && t.Kind != KindWebhook {
		t.KeyHeader = DefaultKeyHeader
	}
	// A webhook handler's acknowledgement has no effect field.
	if t.Effect == (Locator{}) && t.Kind != KindWebhook {
		t.Effect.JSON = DefaultEffectJSON
	}
	if t.Identity == (Locator{}) {
		t.Identity.JSON = DefaultIdentityJSON
	}
	t.DryRun.applyDefaults()
	if t.Timeout == 0 {
		t.Timeout = Duration(DefaultTimeout)
	}
	if s := t.Start; s != nil {
		if s.Ready.Path == "" {
			s.Ready.Path = DefaultReadyPath
		}
		if s.Ready.Timeout == 0 {
			s.Ready.Timeout = Duration(DefaultReadyTimeout)
		}
	}
	for i := range t.Operations {
		op := &t.Operations[i]
		op.DryRun.applyDefaults()
		defaultInputs(op.Inputs)
	}
	switch t.Kind {
	case KindWebhook:
		t.applyWebhookDefaults()
	case KindContainer:
		t.applyContainerDefaults()
	}
}

func defaultInputs(inputs map[string]Input) {
	for _, in := range inputs {
		if in.String != nil && in.String.Length == 0 {
			in.String.Length = DefaultStringLength
		}
	}
}

func (t *Target) applyWebhookDefaults() {
	if s := t.Signature; s != nil {
		if s.Header == "" {
			s.Header = DefaultSignatureHeader
		}
		if s.Scheme == "" {
			s.Scheme = DefaultSignatureScheme
		}
	}
	for i := range t.Events {
		defaultInputs(t.Events[i].Inputs)
	}
}

func (t *Target) applyContainerDefaults() {
	if t.URL == "" {
		t.URL = DefaultContainerURL
	}
	if b := t.Build; b != nil {
		if b.Name == "" {
			b.Name = DefaultImagePrefix + t.Name
		}
		if b.Tag == "" {
			b.Tag = DefaultImageTag
		}
	}
	if t.Ready == nil {
		t.Ready = &Ready{}
	}
	if t.Ready.Path == "" {
		t.Ready.Path = DefaultReadyPath
	}
	if t.Ready.Timeout == 0 {
		t.Ready.Timeout = Duration(DefaultReadyTimeout)
	}
}

func (d *DryRun) applyDefaults() {
	if d != nil && d.Value == "" {
		d.Value = DefaultDryRunValue
	}
}
