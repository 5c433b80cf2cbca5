package redis

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/deps"
)

// writeCommands change data: SET and its kin, hashes, lists, sets, sorted
// sets, streams, keys' lifetimes, scripts and functions (which may write,
// and are counted as writes), and flushes.
var writeCommands = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`
		SET SETNX SETEX PSETEX GETSET GETDEL GETEX MSET MSETNX APPEND SETRANGE
		INCR INCRBY INCRBYFLOAT DECR DECRBY
		DEL UNLINK EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST RENAME RENAMENX MOVE COPY RESTORE
		HSET HSETNX HMSET HDEL HINCRBY HINCRBYFLOAT HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT HPERSIST HGETDEL HGETEX HSETEX
		LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LSET LREM LTRIM LINSERT LMOVE RPOPLPUSH LMPOP BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP
		SADD SREM SPOP SMOVE SINTERSTORE SUNIONSTORE SDIFFSTORE
		ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX ZPOPMIN ZPOPMAX BZPOPMIN BZPOPMAX
		ZMPOP BZMPOP ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZRANGESTORE
		XADD XDEL XTRIM XACK XCLAIM XAUTOCLAIM XGROUP XSETID XREADGROUP
		PFADD PFMERGE GEOADD GEOSEARCHSTORE SETBIT BITOP BITFIELD
		EVAL EVALSHA FCALL FLUSHDB FLUSHALL SWAPDB`) {
		writeCommands[name] = true
	}
}

// isWrite says whether a command changes data. SORT and GEORADIUS write
// only with STORE.
func isWrite(c *command) bool {
	name := c.name()
	if writeCommands[name] {
		return true
	}
	switch name {
	case "SORT", "GEORADIUS", "GEORADIUSBYMEMBER":
		for i := 1; i < len(c.args); i++ {
			if a := c.arg(i); a == "STORE" || a == "STOREDIST" {
				return true
			}
		}
	case "FUNCTION":
		switch c.arg(1) {
		case "LOAD", "DELETE", "FLUSH", "RESTORE":
			return true
		}
	}
	return false
}

// untracked says whether, after c, replies stop following commands one for
// one (a subscription, a monitor, a replica's stream, replies turned off):
// the proxy then relays the connection without faults.
func untracked(c *command) bool {
	switch c.name() {
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR", "SYNC", "PSYNC":
		return true
	case "CLIENT":
		return c.arg(1) == "REPLY" && c.arg(2) != "ON"
	}
	return false
}

// DefaultCode is the error prefix a Fail rule without a code answers with.
const DefaultCode = "ERR"

// messages are Redis's own texts for the error prefixes a fault most often
// injects.
var messages = map[string]string{
	"LOADING":     "Redis is loading the dataset in memory",
	"BUSY":        "Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
	"READONLY":    "You can't write against a read only replica.",
	"OOM":         "command not allowed when used memory > 'maxmemory'.",
	"MASTERDOWN":  "Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
	"TRYAGAIN":    "Multiple keys request during rehashing of slot",
	"CLUSTERDOWN": "The cluster is down",
	"NOREPLICAS":  "Not enough good replicas to write.",
	"ERR":         "injected failure",
}

// errorLine returns the error reply for code and message (Redis's text
// for code when message is empty).
func errorLine(code, message string) []byte {
	if message == "" {
		message = messages[code]
		if message == "" {
			message = "injected failure"
		}
	}
	return []byte("-" + code + " " + message + "\r\n")
}

var codeRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// validateRule checks what is Redis's own in a rule: an error prefix and a
// one-line message.
func validateRule(r deps.Rule) error {
	if r.Code != "" && !codeRE.MatchString(r.Code) {
		return fmt.Errorf("the Redis fault's code %q is not an error prefix: expected capital letters, such as ERR, LOADING or BUSY", r.Code)
	}
	if strings.ContainsAny(r.Message, "\r\n") {
		return fmt.Errorf("the Redis fault's message %q spans lines; an error reply is one line", r.Message)
	}
	return nil
}
