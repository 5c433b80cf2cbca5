package consumer

import (
	"strings"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
)

// ConfigKind describes consumer targets to the configuration file.
var ConfigKind = section.Kind{
	Name: Kind,
	Doc:  "a message-queue consumer, to which idemcheck publishes events through a broker it starts",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"operations": "a consumer target lists events, each with name and payload",
		"url":        "a consumer is reached through its broker: pass {{broker.url}} on its start command",
	},
}

// Section is a consumer target's section of the configuration file.
type Section struct {
	section.Common `yaml:",inline"`
	// Broker is the broker idemcheck starts and publishes through.
	Broker BrokerSection `yaml:"broker,omitempty"`
	// Start is how idemcheck starts (and restarts) the consumer. Required:
	// idemcheck crashes and restarts it, and points it at its broker
	// through {{broker.url}}, {{broker.topic}}, {{broker.stream}},
	// {{broker.group}} and {{broker.ack_wait}}.
	Start *StartSection `yaml:"start,omitempty"`
	// IDHeader, if set, also carries the event id in this header (a Redis
	// stream field), beside Event-Id.
	IDHeader string `yaml:"id_header,omitempty"`
	// Events are the kinds of event published to the consumer. Required:
	// at least one, and names are unique within the target.
	Events []EventSection `yaml:"events,omitempty"`
}

// BrokerSection says which broker idemcheck starts for a consumer target.
type BrokerSection struct {
	// Kind is one of nats (embedded JetStream, the default), kafka (in
	// process), redis (Redis Streams on the redis-server of the PATH) or
	// rabbitmq (a private rabbitmq-server node).
	Kind string `yaml:"kind,omitempty"`
	// Topic names the topic, stream or queue. Default "events".
	Topic string `yaml:"topic,omitempty"`
	// Group names the consumer group. Default "consumers".
	Group string `yaml:"group,omitempty"`
	// AckWait is the broker's redelivery deadline. Default 1s.
	AckWait section.Duration `yaml:"ack_wait,omitempty"`
	// Partitions is the number of Kafka partitions. Default 1.
	Partitions int `yaml:"partitions,omitempty"`
	// Timeout bounds how long one publish waits for the consumer's ack
	// (a retried publish, broker-duplicate-publish, waits as long again).
	// Default 10s.
	Timeout section.Duration `yaml:"timeout,omitempty"`
}

// StartSection is how idemcheck starts the consumer.
type StartSection struct {
	// Command is the program and its arguments. Required, non-empty. It
	// may use {{broker.url}}, {{broker.topic}}, {{broker.stream}},
	// {{broker.group}}, {{broker.ack_wait}}, {{broker.kind}},
	// {{state_dir}}, {{fakes.NAME.url}}, {{deps.NAME.url}} (and the
	// other placeholders of a declared dependency) and {{replica}}; not
	// {{port}}: a consumer listens on none.
	Command []string `yaml:"command,flow"`
	// Env holds extra environment variables; values may use what Command
	// may, and {{env.NAME}}.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the working directory, relative to the configuration file's
	// directory; it may use what Command may.
	Dir string `yaml:"dir,omitempty"`
	// Replicas is how many members of the group idemcheck starts. Default 1.
	Replicas int `yaml:"replicas,omitempty"`
	// ReadyOutput is a text the consumer prints once it is subscribed;
	// each start waits for it. Default: none, the consumer counts as
	// ready once started (the broker keeps what is published meanwhile).
	ReadyOutput string `yaml:"ready_output,omitempty"`
	// ReadyTimeout bounds the wait for ReadyOutput. Default 10s.
	ReadyTimeout section.Duration `yaml:"ready_timeout,omitempty"`
}

// EventSection is one kind of event published to a consumer target: its
// name is the message type (the Event-Type header).
type EventSection struct {
	// Name identifies the event within its target, such as
	// "charge.requested". Required, unique.
	Name string `yaml:"name"`
	// Safe marks an event that must cause no side effect.
	Safe bool `yaml:"safe,omitempty"`
	// Payload is the message body. Required. It carries {{marker}} where
	// the consumer passes it on downstream, and may use {{key}} (the
	// event id) and {{input.NAME}}.
	Payload string `yaml:"payload"`
	// Entity is the entity the event is about (the Kafka record key),
	// with the placeholders Payload may use. Default: the event id.
	Entity string `yaml:"entity,omitempty"`
	// Headers are sent with every message; values may use what Payload
	// may.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Inputs are the values the harness generates for {{input.NAME}}.
	Inputs map[string]section.Input `yaml:"inputs,omitempty"`
}

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	r.Field("start").Required("say how idemcheck starts the consumer, such as start: {command: [./consumer, --url, '{{broker.url}}', --topic, '{{broker.topic}}']}")
	r.Field("id_header").Pattern(section.HeaderName, section.BadHeader)
	r.Field("events").Required(`list at least one event the consumer reads, with its name and payload, such as {name: charge.requested, payload: '{"amount":100,"description":"{{marker}}"}'}`)
}

// Rules implements schema.Ruler.
func (BrokerSection) Rules(r *schema.Rules) {
	r.Field("kind").Enum(Brokers, schema.Unknown("broker", Brokers))
	r.Field("partitions").Range(0, 64, schema.Sprintf("%v partitions: expected 1 to 64"))
}

// Rules implements schema.Ruler.
func (StartSection) Rules(r *schema.Rules) {
	r.Field("command").Required("the consumer's program and arguments, such as [./consumer, --url, '{{broker.url}}']")
	r.Field("replicas").Range(0, MaxReplicas, schema.Sprintf("%v replicas: expected 1 to 8 members of the group"))
}

// Rules implements schema.Ruler.
func (EventSection) Rules(r *schema.Rules) {
	r.Field("name").Required(`give the event a name, such as "charge.requested"`)
	r.Field("payload").Required(`the message body, with the intent's marker, such as '{"amount":100,"description":"order {{marker}}"}'`)
	r.Field("headers").Keys().Pattern(section.HeaderName, section.BadHeader)
	r.Field("headers").Items().Pattern(section.NoControl, section.BadControl)
	r.Field("inputs").Keys().Pattern(section.InputName, section.BadInputName)
}

// brokerPlaceholders are the broker's placeholders a consumer's start
// (its command, env and dir) may use, beside {{state_dir}}, {{replica}}
// and those of the fakes and the dependencies: the ones Vars fills in
// from the broker, and the only ones.
var brokerPlaceholders = []string{
	brokers.PlaceholderURL, brokers.PlaceholderKind, brokers.PlaceholderTopic,
	brokers.PlaceholderStream, brokers.PlaceholderGroup, brokers.PlaceholderAckWait,
}

// startVars are the placeholders a consumer's start may use: what Vars
// fills in, which has no {{port}}.
var startVars = section.StartVars{
	Extra:  brokerPlaceholders,
	NoPort: "a consumer listens on no port: {{port}} has no meaning here; pass {{broker.url}}",
}

// Check implements section.Target.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	if st := s.Start; st != nil {
		sc := c.Field("start")
		startVars.CheckCommand(sc.Field("command"), st.Command)
		startVars.CheckEnv(sc.Field("env"), st.Env)
		startVars.Check(sc.Field("dir"), st.Dir)
	}
	section.CheckOwnHeader(c.Field("id_header"), s.IDHeader)
	events := c.Field("events")
	names := make([]string, len(s.Events))
	for i := range s.Events {
		s.Events[i].check(events.Index(i))
		names[i] = s.Events[i].Name
	}
	events.Unique("event", "name", names, " within a target")
}

func (ev *EventSection) check(c *section.Checker) {
	inputs := section.SortedKeys(ev.Inputs)
	payload, headers := c.Field("payload"), c.Field("headers")
	used := payload.IntentTemplate(ev.Payload, "event", inputs)
	used = used.Or(c.Field("entity").IntentTemplate(ev.Entity, "event", inputs))
	for _, k := range section.SortedKeys(ev.Headers) {
		hc := headers.Key(k)
		if strings.EqualFold(k, brokers.HeaderEventID) || strings.EqualFold(k, HeaderEventType) || strings.EqualFold(k, brokers.HeaderEntity) {
			hc.Errorf("%s is set by idemcheck on every message; remove it here", k)
		}
		used = used.Or(hc.IntentTemplate(hc.EnvRefs(ev.Headers[k]), "event", inputs))
	}
	section.CheckInputs(c.Field("inputs"), ev.Inputs)
	if payload.Refused() || headers.Refused() || ev.Payload == "" {
		return
	}
	if !used.Marker {
		c.Errorf("event %q does not use {{marker}}: put {{marker}} in its payload where the consumer passes it on to its downstream calls (a payment's description, an email's text), so that the fakes can attribute each side effect to the event that caused it", ev.Name)
	}
}

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	if s.Broker.Kind == "" {
		s.Broker.Kind = Brokers[0]
	}
	if s.Broker.Topic == "" {
		s.Broker.Topic = brokers.DefaultTopic
	}
	if s.Broker.Group == "" {
		s.Broker.Group = brokers.DefaultGroup
	}
	if s.Broker.AckWait == 0 {
		s.Broker.AckWait = section.Duration(DefaultAckWait)
	}
	if s.Broker.Timeout == 0 {
		s.Broker.Timeout = section.Duration(DefaultTimeout)
	}
	for i := range s.Events {
		section.DefaultInputs(s.Events[i].Inputs)
	}
}

// Spec implements section.Target.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	cfg := Config{
		Name: s.Name, Broker: s.Broker.Kind, Topic: s.Broker.Topic, Group: s.Broker.Group,
		AckWait: s.Broker.AckWait.Std(), Partitions: s.Broker.Partitions, Timeout: s.Broker.Timeout.Std(),
		IDHeader: s.IDHeader,
	}
	for _, ev := range s.Events {
		cfg.Events = append(cfg.Events, Event{Name: ev.Name, Safe: ev.Safe, Payload: ev.Payload, Entity: ev.Entity,
			Headers: b.EnvMap(ev.Headers), Inputs: section.HarnessInputs(ev.Inputs)})
	}
	var launch *Launch
	if st := s.Start; st != nil {
		cfg.ReadyOutput = st.ReadyOutput
		launch = &Launch{Replicas: st.Replicas, ReadyTimeout: st.ReadyTimeout.Std()}
		launch.Command, launch.Env, launch.Dir = b.Command(st.Command, st.Env, st.Dir)
	}
	return Spec(cfg, launch, b.Fakes()...)
}

// Commands implements section.Commander.
func (s *Section) Commands() []section.Command {
	if s.Start == nil {
		return nil
	}
	return []section.Command{{Field: "start", Command: s.Start.Command, Env: s.Start.Env, Dir: s.Start.Dir}}
}
