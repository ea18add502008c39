package rollout

import "regexp"

func (k FailureKind) String() string {
	if k == Transient {
		return "transient"
	}
	return "permanent"
}

// failureRule is one pattern of Argo CD's operation messages and what it means.
type failureRule struct {
	name string
	re   *regexp.Regexp
}

// permanentRules win over transientRules: a sync that failed for one object's invalid
// manifest and another's reset connection will not succeed by trying again.
var permanentRules = []failureRule{
	{"admission denial", regexp.MustCompile(`(?i)denied the request|admission webhook .* denied`)},
	{"forbidden", regexp.MustCompile(`(?i)\bis forbidden\b|\bforbidden:|exceeded quota`)},
	{"immutable field", regexp.MustCompile(`(?i)field is immutable|is immutable`)},
	{"invalid object", regexp.MustCompile(`(?i)\bis invalid\b|invalid value|unknown field|strict decoding error|error validating data: \[?ValidationError|error unmarshaling JSON|error converting YAML`)},
	{"webhook missing", regexp.MustCompile(`(?i)failed calling webhook .*: service "[^"]+" not found`)},
	{"cached manifest error", regexp.MustCompile(`Manifest generation error \(cached\)`)},
	{"unknown kind", regexp.MustCompile(`(?i)no matches for kind|could not find the requested resource|resource mapping not found`)},
	{"project refusal", regexp.MustCompile(`(?i)not permitted in project|is not permitted|not allowed to be deployed`)},
	{"terminated", regexp.MustCompile(`(?i)operation terminated|SyncFail hooks failed`)},
}

// transientRules are the network and server answers that a later attempt may not meet.
var transientRules = []failureRule{
	{"connection refused", regexp.MustCompile(`(?i)connection refused`)},
	{"connection reset", regexp.MustCompile(`(?i)connection reset|broken pipe|use of closed network connection|server closed idle connection|http2: client connection lost|http2: server sent GOAWAY`)},
	{"EOF", regexp.MustCompile(`\bEOF\b`)},
	{"timeout", regexp.MustCompile(`(?i)TLS handshake timeout|i/o timeout|context deadline exceeded|Client\.Timeout exceeded|timeout awaiting response headers|request canceled|code = DeadlineExceeded`)},
	{"unreachable", regexp.MustCompile(`(?i)no route to host|network is unreachable|no such host|code = Unavailable`)},
	{"HTTP 429", regexp.MustCompile(`(?i)too many requests|TooManyRequests|status code:? 429`)},
	{"HTTP 5xx", regexp.MustCompile(`(?i)the server is currently unable to handle the request|the server was unable to return a response in the time allotted|has prevented the request from succeeding|internal error occurred|internal server error|service unavailable|bad gateway|gateway timeout|status code:? 50[0234]`)},
	{"etcd", regexp.MustCompile(`(?i)etcdserver: (leader changed|request timed out|no leader|too many requests)`)},
	{"conflict", regexp.MustCompile(`(?i)the object has been modified; please apply your changes to the latest version`)},
	{"unauthorized", regexp.MustCompile(`(?i)\bUnauthorized\b`)},
}

// transientFirst are transient answers worded like permanent ones: they win over both tables.
var transientFirst = []failureRule{
	{"namespace terminating", regexp.MustCompile(`(?i)because it is being terminated`)},
}

// ClassifySyncFailure tells from a failed sync's message (status.operationState.message)
// whether a retry may succeed, and the rule that decided ("" when none knew it).
func ClassifySyncFailure(msg string) (FailureKind, string) {
	for _, r := range transientFirst {
		if r.re.MatchString(msg) {
			return Transient, r.name
		}
	}
	for _, r := range permanentRules {
		if r.re.MatchString(msg) {
			return Permanent, r.name
		}
	}
	for _, r := range transientRules {
		if r.re.MatchString(msg) {
			return Transient, r.name
		}
	}
	return Permanent, ""
}
