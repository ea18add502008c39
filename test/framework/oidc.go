package framework

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OIDC is a loopback OpenID Connect issuer for tests: it publishes its discovery document
// and signing key, and signs ID tokens for any user and groups a test names. argocd-server
// verifies them exactly as it verifies a real IdP's (signature, issuer, audience, expiry),
// which gives the stack users with groups: Argo CD's local accounts have none.
type OIDC struct {
	Issuer   string
	ClientID string
	key      *rsa.PrivateKey
	srv      *http.Server
}

// StartOIDC starts the issuer on loopback; the env closes it on Stop.
func (e *Env) StartOIDC() (*OIDC, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("oidc key: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oidc listen: %w", err)
	}
	o := &OIDC{Issuer: "http://" + l.Addr().String(), ClientID: "argo-cd", key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONBody(w, map[string]any{
			"issuer": o.Issuer, "jwks_uri": o.Issuer + "/keys",
			"authorization_endpoint": o.Issuer + "/auth", "token_endpoint": o.Issuer + "/token",
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONBody(w, map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "test",
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	o.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = o.srv.Serve(l) }()
	e.mu.Lock()
	e.closers = append(e.closers, o.srv.Close)
	e.mu.Unlock()
	return o, nil
}

// ArgoCDConfig is argocd-cm's oidc.config for this issuer.
func (o *OIDC) ArgoCDConfig() string {
	return fmt.Sprintf("name: Test IdP\nissuer: %s\nclientID: %s\nclientSecret: not-used-by-tests\nrequestedScopes: [openid, profile, email, groups]\n", o.Issuer, o.ClientID)
}

// Token is an ID token for user (their email is user@example.com) in groups, valid for an
// hour: what Argo CD's SSO login puts in the argocd.token cookie.
func (o *OIDC) Token(user string, groups ...string) (string, error) {
	now := time.Now()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": o.Issuer, "sub": user, "aud": o.ClientID, "email": user + "@example.com", "email_verified": true,
		"name": user, "groups": groups, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": user + "-" + now.Format("150405.000000000"),
	})
	t.Header["kid"] = "test"
	s, err := t.SignedString(o.key)
	if err != nil {
		return "", fmt.Errorf("sign a token for %s: %w", user, err)
	}
	return s, nil
}

func writeJSONBody(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
