package httphook

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
)

// hostile are cluster values an inventory may hold: each would move, rewrite or split
// what it is templated into if it went in as written.
var hostile = []string{"attacker.example/#", `a" or vector(1) #`, `x","admin":true,"y":"`, "--kubeconfig=/etc/x", "a\nb", "x?y=1&z", "@evil.example"}

// clusterOf is a cluster whose name, server and labels are v.
func clusterOf(v string) map[string]string {
	vars := hooks.PhaseVars("guestbook", "argocd", "prod")
	vars["name"], vars["server"], vars["project"], vars["metadata.labels.env"] = v, v, v, v
	return vars
}

func token(name, key string) (string, error) {
	if name == "hook" && key == "token" {
		return "s3cr3t", nil
	}
	return "", errors.New("not found")
}

func fill(t *testing.T, b *Block, vars map[string]string) (*Block, error) {
	t.Helper()
	h, _, err := hooks.Template(spec.Hook{Name: "notify", Type: "http", Block: b}, vars, token)
	if err != nil {
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Fatalf("a secret in an error: %v", err)
		}
		return nil, err
	}
	return h.Block.(*Block), nil
}

// TestAClusterValueIsOnePathSegmentOrOneQueryValue: whatever a cluster's name, it stays
// in the path segment or query value it fills; the request goes to the host the spec
// writes, with its secret header.
func TestAClusterValueIsOnePathSegmentOrOneQueryValue(t *testing.T) {
	for _, v := range hostile {
		b, err := fill(t, &Block{URL: "https://hooks.example.com/clusters/{{name}}/health?env={{metadata.labels.env}}&t=1",
			Headers: map[string]string{"Authorization": "Bearer {{.secrets.hook.token}}"}}, clusterOf(v))
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		u, err := url.Parse(b.URL)
		if err != nil || u.Host != "hooks.example.com" || u.Path != "/clusters/"+v+"/health" || u.Query().Get("env") != v || u.Query().Get("t") != "1" || len(u.Query()) != 2 || u.Fragment != "" {
			t.Errorf("%q: filled %q: %+v %v", v, b.URL, u, err)
		}
	}
	// issue 47: a . or .. segment moved the request to another path (/clusters/../health).
	for _, v := range []string{"..", "."} {
		b, err := fill(t, &Block{URL: "https://hooks.example.com/clusters/{{name}}/health"}, clusterOf(v))
		if err == nil || !strings.Contains(err.Error(), "http.url") || !strings.Contains(err.Error(), "a . or .. path segment") || !strings.Contains(err.Error(), "(fix: ") {
			t.Errorf("%q in the path: %+v %v", v, b, err)
		}
	}
}

// TestAClusterValueInAFormOrXMLBodyStaysOneValue: a form body's value is one query value
// and an XML body's text or attribute stays one (issue 47: both took it as written); in a
// CDATA section a value may not end the section.
func TestAClusterValueInAFormOrXMLBodyStaysOneValue(t *testing.T) {
	for _, v := range append(hostile, "a&admin=true", "<admin>true</admin>", `"/><x y="`, "]]>") {
		b, err := fill(t, &Block{URL: "https://h.example.com/", Body: "cluster={{name}}&env={{metadata.labels.env}}&t=1"}, clusterOf(v))
		q, perr := url.ParseQuery(b.Body)
		if err != nil || perr != nil || len(q) != 3 || q.Get("cluster") != v || q.Get("env") != v || q.Get("t") != "1" {
			t.Errorf("form %q: %+v %v %v", v, b, q, err)
		}
		b, err = fill(t, &Block{URL: "https://h.example.com/", Body: `<deploy cluster="{{name}}"><env>{{metadata.labels.env}}</env></deploy>`}, clusterOf(v))
		var doc struct {
			Cluster string   `xml:"cluster,attr"`
			Env     []string `xml:"env"`
			Admin   []string `xml:"admin"`
		}
		if err != nil || xml.Unmarshal([]byte(b.Body), &doc) != nil || doc.Cluster != v || len(doc.Env) != 1 || doc.Env[0] != v || len(doc.Admin) != 0 {
			t.Errorf("xml %q: %+v %+v %v", v, b, doc, err)
		}
	}
	if b, err := fill(t, &Block{URL: "https://h.example.com/", Body: "<x><![CDATA[{{name}}]]></x>"}, clusterOf("a<b>&c")); err != nil || b.Body != "<x><![CDATA[a<b>&c]]></x>" {
		t.Errorf("a CDATA value: %+v %v", b, err)
	}
	if _, err := fill(t, &Block{URL: "https://h.example.com/", Body: "<x><![CDATA[{{name}}]]></x>"}, clusterOf("]]><admin/>")); err == nil || !strings.Contains(err.Error(), "would end the CDATA section") {
		t.Errorf("a value ending CDATA: %v", err)
	}
}

// TestAClusterValueNeverSetsTheHost: a cluster field in the scheme, user info, port or
// the whole of the host is refused by validate and by the run; as a leading label before
// a literal domain (seed 000's https://{{name}}.dev.example.com) it must be one DNS label,
// and the hook may then send no secret.
func TestAClusterValueNeverSetsTheHost(t *testing.T) {
	for _, u := range []string{"{{metadata.annotations.url}}", "https://{{server}}/x", "https://{{name}}/x", "https://x.example.com:{{metadata.labels.port}}/",
		"https://{{name}}.example.com@evil.example/", "http{{metadata.labels.s}}://x.example.com/", "https://hooks.{{name}}/", "https://{{name}}.{{project}}/"} {
		if _, err := spectest.ParseWithCheck("{name: h, type: http, http: {url: '" + u + "'}}"); err == nil || !strings.Contains(err.Error(), "would set the URL's") ||
			!strings.Contains(err.Error(), "http.url") || !strings.Contains(err.Error(), "fix: write the host literally; put cluster values in the path or query") {
			t.Errorf("validate %s: %v", u, err)
		}
		if _, err := fill(t, &Block{URL: u}, clusterOf("prod-1")); err == nil || !strings.Contains(err.Error(), "hook notify: http.url: cluster field") {
			t.Errorf("run %s: %v", u, err)
		}
	}
	label := &Block{URL: "https://{{name}}.dev.example.com/health"}
	if _, err := spectest.ParseWithCheck("{name: h, type: http, http: {url: '" + label.URL + "'}}"); err != nil {
		t.Errorf("seed 000's leading label: %v", err)
	}
	if b, err := fill(t, label, clusterOf("prod-1")); err != nil || b.URL != "https://prod-1.dev.example.com/health" {
		t.Errorf("a DNS label: %+v %v", b, err)
	}
	for _, v := range append(hostile, "a.b", "") {
		if b, err := fill(t, label, clusterOf(v)); err == nil || !strings.Contains(err.Error(), "not one DNS label") {
			t.Errorf("%q: %+v %v", v, b, err)
		}
	}
	secret := "{name: h, type: http, http: {url: 'https://{{name}}.example.com/', headers: {Authorization: 'Bearer {{.secrets.hook.token}}'}}}"
	if _, err := spectest.ParseWithCheck(secret); err == nil || !strings.Contains(err.Error(), "may not send a secret") {
		t.Errorf("validate, a secret to a cluster's host: %v", err)
	}
	if _, err := fill(t, &Block{URL: "https://{{name}}.example.com/", Headers: map[string]string{"Authorization": "Bearer {{.secrets.hook.token}}"}}, clusterOf("prod-1")); err == nil || !strings.Contains(err.Error(), "may not send a secret") {
		t.Errorf("run, a secret to a cluster's host: %v", err)
	}
}

// TestAClusterValueInAJSONBodyStaysOneString: inside a JSON string it is JSON-escaped;
// outside one it must be one scalar; a body that is not JSON takes it as written.
func TestAClusterValueInAJSONBodyStaysOneString(t *testing.T) {
	for _, v := range append(hostile, `\`, "\t\u2028") {
		b, err := fill(t, &Block{URL: "https://h.example.com/", Body: `{"cluster": "{{name}}", "text": "deployed to {{ server }} \"ok\""}`}, clusterOf(v))
		var got map[string]any
		if err != nil || json.Unmarshal([]byte(b.Body), &got) != nil || len(got) != 2 || got["cluster"] != v || got["text"] != `deployed to `+v+` "ok"` {
			t.Errorf("%q: %v %v %v", v, b, got, err)
		}
	}
	for v, ok := range map[string]bool{"3": true, "true": true, `"x"`: true, `1,"admin":true`: false, `{"a":1}`: false, "x": false} {
		_, err := fill(t, &Block{URL: "https://h.example.com/", Body: `{"replicas": {{metadata.labels.env}}}`}, clusterOf(v))
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "not one JSON scalar")) {
			t.Errorf("%q outside a string: %v", v, err)
		}
	}
	if b, err := fill(t, &Block{URL: "https://h.example.com/", Body: "cluster {{name}}"}, clusterOf(`a"b`)); err != nil || b.Body != `cluster a"b` {
		t.Errorf("a text body: %+v %v", b, err)
	}
}

// TestAClusterValueNeverStartsAnotherHeader: a header value from a cluster holds no line
// break.
func TestAClusterValueNeverStartsAnotherHeader(t *testing.T) {
	for _, v := range []string{"a\r\nX-Admin: 1", "a\nb", "a\x00"} {
		if _, err := fill(t, &Block{URL: "https://h.example.com/", Headers: map[string]string{"X-Cluster": "{{name}}"}}, clusterOf(v)); err == nil || !strings.Contains(err.Error(), "http.headers.X-Cluster") {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestPhaseVariablesAndSecretsAreFilledAsWritten: the operator's own values are not escaped.
func TestPhaseVariablesAndSecretsAreFilledAsWritten(t *testing.T) {
	b, err := fill(t, &Block{URL: "https://h.example.com/{{.appset.name}}?t={{.secrets.hook.token}}", Body: `{"a": "{{.phase.name}}"}`}, hooks.PhaseVars("guest/book", "argocd", `p"1`))
	if err != nil || b.URL != "https://h.example.com/guest/book?t=s3cr3t" || b.Body != `{"a": "p"1"}` {
		t.Errorf("%+v %v", b, err)
	}
}
